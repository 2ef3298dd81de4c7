import { cosine } from '@promptpix/core';
import { createConceptEncoder } from './concepts';
import { createCombinedEncoder, createEmbeddedEmbedder, GLOVE_SHARE } from './embedded-embedder';
import { sifVector } from './sif';
import { buildTinyWordVectors } from './test-fixtures/word-vectors';
import { openWordVectors } from './word-vectors';

let fixture: ReturnType<typeof buildTinyWordVectors>;
beforeAll(() => {
  fixture = buildTinyWordVectors();
});
afterAll(() => fixture.cleanup());

describe('the embedded encoder: WordNet concepts and GloVe word vectors in one vector', () => {
  const pairs = [
    ['a kitten in the sun', 'a cat on a sunny windowsill'],
    ['a kitten in the sun', 'a red car'],
    ['a zebra', 'an aardvark'],
    ['a cat', 'a cat'],
    ['a kitten', 'an unknownword'],
  ];

  it.each(pairs)('the cosine of "%s" and "%s" is the blend of the word-vector and the concept cosines', (a, b) => {
    const combined = createCombinedEncoder({ wordVectorsFile: fixture.file });
    const concepts = createConceptEncoder();
    const vectors = openWordVectors(fixture.file);
    try {
      const [ga, gb] = [sifVector(a, vectors), sifVector(b, vectors)];
      const glove = ga && gb ? ga.reduce((sum, v, d) => sum + v * gb[d], 0) : 0;
      const expected = GLOVE_SHARE * glove + (1 - GLOVE_SHARE) * cosine(concepts.encode(a), concepts.encode(b));
      expect(cosine(combined.encode(a), combined.encode(b))).toBeCloseTo(expected, 3);
    } finally {
      combined.close();
      concepts.close();
      vectors.close();
    }
  });

  it('a paraphrase scores above an unrelated prompt', () => {
    const encoder = createCombinedEncoder({ wordVectorsFile: fixture.file });
    const subject = encoder.encode('a cat on a sunny windowsill');
    expect(cosine(encoder.encode('a kitten in the sun'), subject)).toBeGreaterThan(cosine(encoder.encode('a red car'), subject) + 0.2);
    encoder.close();
  });

  it('has unit length, ascending terms (word-vector dimensions below 0, concepts above) and keys of both parts that never collide', () => {
    const encoder = createCombinedEncoder({ wordVectorsFile: fixture.file });
    const v = encoder.encode('a kitten in the sun');
    encoder.close();
    expect(Math.hypot(...v.weights)).toBeCloseTo(1, 3);
    expect([...v.terms].sort((a, b) => a - b)).toEqual(v.terms);
    expect(v.terms.filter((t) => t < 0)).toEqual([-4, -3, -2, -1]);
    expect(v.terms.filter((t) => t >= 0).every((t) => t > 1000)).toBe(true);
    const bandKeys = v.keys.filter((k) => k < 0);
    expect(bandKeys).toHaveLength(16);
    expect(bandKeys.every((k) => k >= -16 * 64)).toBe(true);
    expect(v.keys.filter((k) => k > 1000).length).toBeGreaterThan(0);
    expect(new Set(v.keys).size).toBe(v.keys.length);
  });

  it('a prompt with no known word keeps its concepts alone, at their share of the blend', () => {
    const encoder = createCombinedEncoder({ wordVectorsFile: fixture.file });
    const v = encoder.encode('a lighthouse');
    encoder.close();
    expect(v.terms.every((t) => t > 0)).toBe(true);
    expect(v.keys.every((k) => k > 0)).toBe(true);
    expect(Math.hypot(...v.weights)).toBeCloseTo(Math.sqrt(1 - GLOVE_SHARE), 3);
  });
});

describe('the embedded default adapter', () => {
  it('names its own vector space, so vectors stored by WordNet alone are recomputed', async () => {
    const warn = jest.fn();
    const embedder = createEmbeddedEmbedder({ wordVectorsFile: fixture.file, warn });
    const [vector] = await embedder.embed(['a kitten in the sun']);
    embedder.close();
    expect(embedder.space).toMatch(/^wordnet-3\.1\/concepts-v\d+\+glove-6b-100d\/sif-v\d+$/);
    expect(vector.terms.some((t) => t < 0)).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('without the word-vector file, falls back to WordNet concepts alone and says so', async () => {
    const warn = jest.fn();
    const embedder = createEmbeddedEmbedder({ wordVectorsFile: `${fixture.file}.missing`, warn });
    const [vector] = await embedder.embed(['a kitten in the sun']);
    expect(embedder.space).toMatch(/^wordnet-3\.1\/concepts-v\d+$/);
    expect(vector.terms.every((t) => t > 0)).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(/word-vector file .* not found.*WordNet concepts alone/);
  });
});
