/**
 * A prompt's subjects: the things it names (nouns), with their counts ("three cats"), colours
 * ("a red car") and simple relations ("on", "under", "beside", "in front of", "behind"), each
 * matched to an icon by meaning (./subject-match.ts). Words of the setting (sunset, cliff, rain,
 * underwater) stay with the scene plan (./lexicon.ts); a subject may stand on one ("on a cliff").
 */
import { colourHueOf, themeOf } from './lexicon';
import type { IconMatch, SubjectMatcher } from './subject-match';

export type Relation = 'on' | 'under' | 'beside' | 'in front of' | 'behind';

/** A colour a subject is recoloured to: a hue, or one of the neutral tones. */
export type SubjectColour = { readonly word: string } & ({ readonly hue: number } | { readonly tone: 'black' | 'white' | 'grey' | 'brown' });

export interface Subject {
  readonly match: IconMatch;
  /** The prompt's words for it. */
  readonly words: readonly string[];
  /** 1..MAX_COUNT. */
  readonly count: number;
  readonly colour?: SubjectColour;
  /** Where it stands relative to another subject (its index) or to a setting word ("cliff"). */
  readonly relation?: { readonly kind: Relation; readonly to: number | string };
}

export const MAX_SUBJECTS = 4;
export const MAX_COUNT = 5;

const COUNTS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  single: 1,
  lone: 1,
  two: 2,
  pair: 2,
  couple: 2,
  three: 3,
  few: 3,
  several: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  many: 5,
  some: 3,
};

const TONES: Readonly<Record<string, 'black' | 'white' | 'grey' | 'brown'>> = {
  black: 'black',
  white: 'white',
  grey: 'grey',
  gray: 'grey',
  silver: 'grey',
  brown: 'brown',
};

/** Words that join or qualify but name nothing. */
const FUNCTION_WORDS = new Set(
  (
    'the of in at with and or to by for from near upon over into onto is are was were be my your its his her their this that these those ' +
    'very his her it while as during through across along around about against than then so not no only just there here ' +
    'who which what where when how its under on above below beside behind near next front top atop beneath underneath inside ' +
    'out up down off during sitting standing flying floating walking lying'
  ).split(' '),
);

/** Theme words that name something to draw, not only a setting ("a dragon", "a cactus", "a cat"). */
const DRAWABLE_THEME_WORDS = new Set(
  'cat kitten kitty dog puppy hound robot android cyborg dragon cactus astronaut volcano tree pine flower bird planet island'.split(' '),
);

/** Whether a word belongs to the setting (palette, terrain, weather) rather than to the subjects. */
export const isSettingWord = (word: string): boolean => {
  const singular = word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word;
  return themeOf(word) !== undefined && !DRAWABLE_THEME_WORDS.has(word) && !DRAWABLE_THEME_WORDS.has(singular);
};

const colourOf = (word: string): SubjectColour | undefined => {
  const hue = colourHueOf(word);
  if (hue !== undefined) return { word, hue };
  return Object.hasOwn(TONES, word) ? { word, tone: TONES[word] } : undefined;
};

/** Reads a relation starting at token i: its kind and how many tokens it takes. */
const relationAt = (tokens: readonly string[], i: number): [Relation, number] | undefined => {
  const [a, b, c] = [tokens[i], tokens[i + 1], tokens[i + 2]];
  if (a === 'in' && b === 'front' && c === 'of') return ['in front of', 3];
  if (a === 'next' && b === 'to') return ['beside', 2];
  if (a === 'on' && b === 'top' && c === 'of') return ['on', 3];
  switch (a) {
    case 'on':
    case 'atop':
    case 'upon':
      return ['on', 1];
    case 'under':
    case 'beneath':
    case 'underneath':
    case 'below':
      return ['under', 1];
    case 'beside':
    case 'near':
    case 'by':
    case 'with':
      return ['beside', 1];
    case 'behind':
      return ['behind', 1];
    default:
      return undefined;
  }
};

interface Phrase {
  words: string[];
  count: number;
  colour?: SubjectColour;
  start: number;
}

/**
 * The subjects of `prompt`, in the prompt's order (the first is the main one), each matched to an
 * icon by `matcher`; words no icon comes near are left out. At most MAX_SUBJECTS, counts capped
 * at MAX_COUNT.
 */
export const subjectsOf = (prompt: string, matcher: SubjectMatcher): Subject[] => {
  const tokens = prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  // Noun phrases: runs of content words, with the count and colour just before them.
  const phrases: Phrase[] = [];
  const settingAt = new Map<number, string>();
  let count: number | undefined;
  let colour: SubjectColour | undefined;
  let run: Phrase | undefined;
  const close = () => {
    if (run) phrases.push(run);
    run = undefined;
  };
  tokens.forEach((token, i) => {
    const number = /^\d+$/.test(token) ? Number(token) : Object.hasOwn(COUNTS, token) ? COUNTS[token] : undefined;
    const tint = colourOf(token);
    if (number !== undefined) {
      close();
      count = number;
    } else if (tint) {
      close();
      colour = tint;
    } else if (FUNCTION_WORDS.has(token)) {
      close();
      count = undefined;
      colour = undefined;
    } else if (isSettingWord(token)) {
      close();
      settingAt.set(i, token);
      count = undefined;
      colour = undefined;
    } else {
      run ??= { words: [], count: count ?? 1, colour, start: i };
      run.words.push(token);
      count = undefined;
      colour = undefined;
    }
  });
  close();

  const subjects: Array<Subject & { start: number; end: number }> = [];
  for (const phrase of phrases) {
    if (subjects.length >= MAX_SUBJECTS) break;
    const match = matcher.match(phrase.words);
    if (!match) continue;
    // One icon once: "a dog and a puppy" is one dog.
    if (subjects.some((s) => s.match.icon === match.icon)) continue;
    subjects.push({
      match,
      words: phrase.words,
      count: Math.max(1, Math.min(MAX_COUNT, phrase.count)),
      ...(phrase.colour ? { colour: phrase.colour } : {}),
      start: phrase.start,
      end: phrase.start + phrase.words.length,
    });
  }

  // Relations: "X on (a|the|red…) Y", where Y is another subject or a setting word.
  return subjects.map(({ start: _start, end, ...subject }, index) => {
    let i = end;
    while (i < tokens.length && ['is', 'are', 'sitting', 'standing', 'lying', 'flying', 'floating', 'walking', 'parked', 'perched'].includes(tokens[i])) i++;
    const relation = relationAt(tokens, i);
    if (!relation) return subject;
    let j = i + relation[1];
    while (j < tokens.length && (['the', 'a', 'an', 'some', 'its', 'their'].includes(tokens[j]) || colourOf(tokens[j]) || Object.hasOwn(COUNTS, tokens[j])))
      j++;
    const other = subjects.findIndex((s) => s.start <= j && j < s.end);
    if (other >= 0 && other !== index) return { ...subject, relation: { kind: relation[0], to: other } };
    const setting = settingAt.get(j);
    return setting && relation[0] === 'on' ? { ...subject, relation: { kind: 'on', to: setting } } : subject;
  });
};
