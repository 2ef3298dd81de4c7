import { cosine } from '@promptpix/core';
import { createConceptEncoder } from './concepts';
import { openWordNet, synsetId } from './wordnet';

const encoder = createConceptEncoder();
afterAll(() => encoder.close());

describe('the WordNet reader', () => {
  const wordnet = openWordNet();
  afterAll(() => wordnet.close());

  it.each([
    ['dog', 'n', 'dog'],
    ['outer_space', 'n', 'outer_space'],
    ['nap', 'v', 'nap'],
  ] as const)('finds %s (%s) by binary search in the sorted index and reads its synset at its offset', (lemma, pos, word) => {
    const [first] = wordnet.senses(lemma, pos);
    expect(first).toBeDefined();
    expect(wordnet.synset(first).words).toContain(word);
    expect(first % 4).toBe(synsetId(0, pos));
  });

  it('knows no made-up word', () => {
    expect(wordnet.senses('zzqxvvbn', 'n')).toEqual([]);
  });
});

describe('prompt meaning as WordNet concepts', () => {
  const similarity = (a: string, b: string) => cosine(encoder.encode(a), encoder.encode(b));

  it.each([
    ['inflections reduce to their lemma', 'puppies', 'puppy'],
    ['a doubled consonant before -ing', 'napping', 'nap'],
    ['a hypernym links a breed to its kind', 'a puppy', 'a dog'],
    ['a definition links a kitten to a cat', 'a kitten', 'a cat'],
    ['a collocation reads as one concept', 'outer space', 'deep space'],
  ])('%s: "%s" ~ "%s"', (_why, a, b) => {
    expect(similarity(a, b)).toBeGreaterThan(0.1);
  });

  it('unrelated prompts share (almost) nothing', () => {
    expect(similarity('a puppy in a meadow', 'quarterly tax spreadsheet')).toBeLessThan(0.05);
  });

  it('gives a unit vector with ascending terms and keys drawn from its terms; stopwords and unknown words add nothing', () => {
    const v = encoder.encode('a red fox in the snow');
    expect(Math.hypot(...v.weights)).toBeCloseTo(1, 3);
    expect([...v.terms].sort((x, y) => x - y)).toEqual(v.terms);
    expect(v.keys.every((k) => v.terms.includes(k))).toBe(true);
    expect(encoder.encode('the of and zzqxvvbn')).toEqual({ terms: [], weights: [], keys: [] });
  });
});
