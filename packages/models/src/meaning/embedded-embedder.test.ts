import { cosine } from '@promptpix/core';
import { createConceptEncoder } from './concepts';
import { CONCEPT_SHARE, createCombinedEncoder, createEmbeddedEmbedder, GLOVE_SHARE, HEAD_SHARE } from './embedded-embedder';
import { GLOVE_COMMON_DIRECTIONS, GLOVE_HEAD_BASIS } from './glove-common-directions';
import { COMMON_DIRECTION_COUNT, HEAD_DIMENSIONS, headVector, headWord, inBasis, sifVector, withoutCommon } from './sif';
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
    ['a kitten on a windowsill', 'a cat in the sun'],
  ];

  it.each(pairs)('the cosine of "%s" and "%s" is the blend of the word-vector and the concept cosines', (a, b) => {
    const combined = createCombinedEncoder({ wordVectorsFile: fixture.file });
    const concepts = createConceptEncoder();
    const vectors = openWordVectors(fixture.file);
    try {
      const dot = (x: Float64Array | null, y: Float64Array | null) => (x && y ? x.reduce((sum, v, d) => sum + v * y[d], 0) : 0);
      const glove = dot(sifVector(a, vectors), sifVector(b, vectors));
      const head = dot(headVector(a, vectors), headVector(b, vectors));
      const expected = GLOVE_SHARE * glove + HEAD_SHARE * head + CONCEPT_SHARE * cosine(concepts.encode(a), concepts.encode(b));
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

  it('has unit length, ascending terms (head word and sentence word-vector dimensions below 0, concepts above) and keys of both parts that never collide', () => {
    const encoder = createCombinedEncoder({ wordVectorsFile: fixture.file });
    const v = encoder.encode('a kitten in the sun');
    encoder.close();
    expect(Math.hypot(...v.weights)).toBeCloseTo(1, 3);
    expect([...v.terms].sort((a, b) => a - b)).toEqual(v.terms);
    expect(v.terms.filter((t) => t < 0)).toEqual([-8, -7, -6, -5, -4, -3, -2, -1]);
    expect(v.terms.filter((t) => t >= 0).every((t) => t > 1000)).toBe(true);
    const bandKeys = v.keys.filter((k) => k < 0);
    expect(bandKeys).toHaveLength(20);
    expect(bandKeys.every((k) => k >= -20 * 32)).toBe(true);
    expect(v.keys.filter((k) => k > 1000).length).toBeGreaterThan(0);
    expect(new Set(v.keys).size).toBe(v.keys.length);
  });

  it('a prompt with no known word keeps its concepts alone, at their share of the blend', () => {
    const encoder = createCombinedEncoder({ wordVectorsFile: fixture.file });
    const v = encoder.encode('a lighthouse');
    encoder.close();
    expect(v.terms.every((t) => t > 0)).toBe(true);
    expect(v.keys.every((k) => k > 0)).toBe(true);
    expect(Math.hypot(...v.weights)).toBeCloseTo(Math.sqrt(CONCEPT_SHARE), 3);
  });
});

describe('the word-vector part: head word and common directions', () => {
  it.each([
    ['a red fox in a snowy forest', 'fox'],
    ['a friendly robot waving hello', 'robot'],
    ['a cup of coffee on a cafe table', 'coffee'],
    ['a team meeting in a bright modern office', 'meeting'],
    ['a cat sleeping on a sunny windowsill', 'cat'],
    ['mountains above the clouds at dawn', 'mountains'],
    ['outer space', 'space'],
    ['in the rain', 'rain'],
    ['the of and', undefined],
  ])('the head of "%s" is %s', (prompt, head) => {
    expect(headWord(prompt)).toBe(head);
  });

  it('removes the common directions and keeps unit length', () => {
    const v = Float64Array.from([0.6, 0.8, 0, 0]);
    const out = withoutCommon(v, [[1, 0, 0, 0]]);
    expect(Array.from(out!)).toEqual([0, 1, 0, 0]);
    expect(withoutCommon(Float64Array.from([1, 0, 0, 0]), [[1, 0, 0, 0]])).toBeNull();
  });

  it('leaves vectors of another length (another word-vector file) as they are', () => {
    const v = Float64Array.from([0.6, 0.8]);
    expect(Array.from(withoutCommon(v, [[1, 0, 0, 0]])!)).toEqual([0.6, 0.8]);
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

describe('the common directions and head basis of the GloVe file (generated by scripts/glove-common-directions.ts)', () => {
  const dot = (u: readonly number[], w: readonly number[]) => u.reduce((sum, x, d) => sum + x * w[d], 0);
  it.each([
    ['common directions', GLOVE_COMMON_DIRECTIONS, COMMON_DIRECTION_COUNT],
    ['head basis', GLOVE_HEAD_BASIS, HEAD_DIMENSIONS],
  ] as const)('the %s are orthonormal directions of the file’s 100 dimensions', (_name, rows, count) => {
    expect(rows).toHaveLength(count);
    rows.forEach((u, i) => {
      expect(u).toHaveLength(100);
      rows.forEach((w, j) => {
        expect(dot(u, w)).toBeCloseTo(i === j ? 1 : 0, 4);
      });
    });
  });

  it('the head basis lies outside the common directions', () => {
    for (const u of GLOVE_HEAD_BASIS) for (const c of GLOVE_COMMON_DIRECTIONS) expect(Math.abs(dot(u, c))).toBeLessThan(1e-4);
  });

  it('a vector in the basis is its coordinates, at unit length; one of another length is left as it is', () => {
    const v = Float64Array.from(GLOVE_HEAD_BASIS[0].map((x, d) => 0.6 * x + 0.8 * GLOVE_HEAD_BASIS[1][d]));
    const coordinates = inBasis(v, GLOVE_HEAD_BASIS)!;
    expect(coordinates).toHaveLength(HEAD_DIMENSIONS);
    expect(coordinates[0]).toBeCloseTo(0.6, 4);
    expect(coordinates[1]).toBeCloseTo(0.8, 4);
    expect(Array.from(inBasis(Float64Array.from([1, 0]), GLOVE_HEAD_BASIS)!)).toEqual([1, 0]);
  });
});
