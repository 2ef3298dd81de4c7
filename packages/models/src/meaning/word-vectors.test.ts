import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTinyWordVectors, TINY_VECTORS } from './test-fixtures/word-vectors';
import { openWordVectors, type WordVectors } from './word-vectors';

let fixture: ReturnType<typeof buildTinyWordVectors>;
let vectors: WordVectors;
beforeAll(() => {
  fixture = buildTinyWordVectors();
  vectors = openWordVectors(fixture.file);
});
afterAll(() => {
  vectors.close();
  fixture.cleanup();
});

describe('the word-vector file and its reader', () => {
  it('records the dimensions and how many frequent words were considered', () => {
    expect(vectors.dimensions).toBe(4);
    expect(vectors.ranked).toBe(12);
  });

  it.each(['the', 'cat', 'sun', 'car', 'kitten', 'windowsill', 'zebra', 'aardvark'])(
    'finds "%s" by binary search, with its rank and its vector to within int8 steps',
    (word) => {
      const [expected, rank] = TINY_VECTORS[word];
      const found = vectors.lookup(word);
      expect(found?.rank).toBe(rank);
      const step = Math.max(...expected.map(Math.abs)) / 127;
      expected.forEach((v, d) => {
        expect(Math.abs(found!.vector[d] - v)).toBeLessThanOrEqual(step / 2 + 1e-6);
      });
    },
  );

  it.each([
    [',', 'punctuation'],
    ["o'clock", 'not plain letters'],
    ['Paris', 'upper case (the tokenizer lower-cases)'],
    ['paris', 'never in the file'],
    ['antidisestablishmentarianism', 'longer than a record holds'],
    ['rare', 'beyond the most frequent words considered'],
    ['ca', 'a prefix of a word'],
    ['cats', 'a word after a stored prefix'],
    ['', 'empty'],
  ])('leaves out "%s" (%s)', (word) => {
    expect(vectors.lookup(word)).toBeUndefined();
    expect(vectors.lookup(word)).toBeUndefined(); // also once cached
  });

  it('refuses a file that is not a word-vector file', () => {
    const other = join(fixture.file, '..', 'other.bin');
    writeFileSync(other, Buffer.alloc(64));
    expect(() => openWordVectors(other)).toThrow(/not a word-vector file/);
  });
});
