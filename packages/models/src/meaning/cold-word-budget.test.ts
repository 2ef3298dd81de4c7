import { createColdWordBudget } from './cold-word-budget';
import { createConceptEncoder } from './concepts';
import { createEmbeddedEmbedder } from './embedded-embedder';
import { buildTinyWordVectors } from './test-fixtures/word-vectors';
import { createWordNetEmbedder } from './wordnet-embedder';

describe('the cold-word budget: a token bucket', () => {
  // [perSecond, burst, milliseconds between takes, takes, allowed]
  it.each([
    [100, 400, 0, 500, 400],
    [100, 400, 10, 500, 500],
    [100, 4, 0, 10, 4],
    [100, 4, 5, 10, 8],
    [1, 0, 0, 3, 0],
    [0, 2, 1000, 5, 2],
  ])('%d/s, burst %d, a take every %d ms: %d takes allow %d', (perSecond, burst, gapMs, takes, allowed) => {
    let clock = 0;
    const budget = createColdWordBudget({ perSecond, burst }, () => clock);
    let granted = 0;
    for (let i = 0; i < takes; i++) {
      if (budget.take()) granted++;
      clock += gapMs;
    }
    expect(granted).toBe(allowed);
  });
});

describe('instant queries read new words only within the budget; cached words and the indexer are free', () => {
  const empty = () => createColdWordBudget({ perSecond: 0, burst: 0 });

  it('the concept encoder: with no budget left a new word is not read, a cached one still counts', () => {
    const encoder = createConceptEncoder();
    try {
      expect(encoder.encode('a kitten in the sun', empty()).terms).toEqual([]);
      const full = encoder.encode('a kitten in the sun');
      expect(full.terms.length).toBeGreaterThan(0);
      expect(encoder.encode('a kitten in the sun', empty())).toEqual(full);
    } finally {
      encoder.close();
    }
  });

  it.each([
    ['embedded default (concepts + word vectors)', true],
    ['WordNet alone (its fallback)', false],
  ])('%s: a query past the budget gets no concepts; the indexer always gets them', async (_, withVectors) => {
    const fixture = buildTinyWordVectors();
    const embedder = withVectors
      ? createEmbeddedEmbedder({ wordVectorsFile: fixture.file, queryColdWords: empty() })
      : createWordNetEmbedder({ queryColdWords: empty() });
    const concepts = (v: { terms: number[] }) => v.terms.filter((t) => t >= 0);
    try {
      const [query] = await embedder.embed(['a lighthouse on a rocky coast'], { purpose: 'query' });
      expect(concepts(query)).toEqual([]);
      const [indexed] = await embedder.embed(['a lighthouse on a rocky coast']);
      expect(concepts(indexed).length).toBeGreaterThan(0);
      const [again] = await embedder.embed(['a lighthouse on a rocky coast'], { purpose: 'query' });
      expect(again).toEqual(indexed);
    } finally {
      embedder.close();
      fixture.cleanup();
    }
  });
});
