import { createConceptEncoder } from './concepts';
import { createCombinedEncoder } from './embedded-embedder';
import { MEANING_WORDS, meaningWords } from './prompt-words';
import { buildTinyWordVectors } from './test-fixtures/word-vectors';

describe('meaningWords: the part of a prompt the meaning adapters read', () => {
  it.each([
    ['a cat on a sunny windowsill', 'a cat on a sunny windowsill'],
    ['  spaces   stay as typed when short ', '  spaces   stay as typed when short '],
    [Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '), Array.from({ length: MEANING_WORDS }, (_, i) => `w${i}`).join(' ')],
    [`${'a '.repeat(MEANING_WORDS)}tail`, Array.from({ length: MEANING_WORDS }, () => 'a').join(' ')],
  ])('%j → %j', (prompt, expected) => {
    expect(meaningWords(prompt)).toBe(expected);
  });
});

describe('a long prompt costs no more than its first words', () => {
  // A caller's 2,000-character prompt of distinct words (an embed batch can carry 50 of them)
  // is read only up to MEANING_WORDS words: the words after that never reach the dictionary.
  const head = 'a kitten napping in the sun beside an old lighthouse on a rocky coast at dusk with gulls and a small red boat near the pier';
  const tail = Array.from({ length: 250 }, (_, i) => ['zebra', 'volcano', 'castle', 'violin', 'galaxy'][i % 5]).join(' ');
  const long = `${head} ${tail}`.slice(0, 2000);

  it('the WordNet concepts of a long prompt are those of its first words', () => {
    const encoder = createConceptEncoder();
    try {
      expect(encoder.encode(long)).toEqual(encoder.encode(meaningWords(long)));
      expect(encoder.encode(`${head} ${tail}`)).toEqual(encoder.encode(`${head} ocean ocean ocean`));
    } finally {
      encoder.close();
    }
  });

  it('the embedded default (concepts + word vectors) of a long prompt is that of its first words', () => {
    const fixture = buildTinyWordVectors();
    const encoder = createCombinedEncoder({ wordVectorsFile: fixture.file });
    try {
      expect(encoder.encode(long)).toEqual(encoder.encode(meaningWords(long)));
    } finally {
      encoder.close();
      fixture.cleanup();
    }
  });
});
