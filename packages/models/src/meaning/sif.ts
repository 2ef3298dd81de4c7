/**
 * A sentence vector from word vectors by smooth inverse frequency (SIF, Arora et al. 2017): the
 * sum of the content words' vectors, each weighted a / (a + p(w)) so that frequent words ("man",
 * "old") count less than rare ones ("lighthouse"), at unit length. p(w) is estimated from the
 * word's frequency rank by Zipf's law: 1 / ((rank + 1) · (ln N + γ)).
 *
 * Every such vector also leans the same few ways, whatever the sentence says (the "common
 * component": frequent words, style of the corpus): unrelated prompts sit at word-vector cosine 0.3
 * to 0.4. `withoutCommon` removes those directions (glove-common-directions.ts, computed from the
 * word-vector file alone), so the cosine is left with what the prompts say.
 */
import type { WordVectors } from './word-vectors';

export const SIF_A = 1e-4;
const EULER_GAMMA = 0.5772;
/** How many common directions glove-common-directions.ts holds: the mean direction and 3 principal ones. */
export const COMMON_DIRECTION_COUNT = 4;
/** The dimensions of a head word's stored vector: its coordinates in GLOVE_HEAD_BASIS. */
export const HEAD_DIMENSIONS = 48;

const STOPWORDS = new Set(
  'a an the of in on at by with and or to for from into over under above below near across along through during its it is are be this that some someone something his her their my your our very'.split(
    ' ',
  ),
);

const tokens = (text: string): string[] => text.toLowerCase().match(/[a-z]+/g) ?? [];

/** The prompt's unit sentence vector, or null when none of its words has a vector. */
export function sifVector(text: string, vectors: WordVectors, a = SIF_A): Float64Array | null {
  const sum = new Float64Array(vectors.dimensions);
  const harmonic = Math.log(vectors.ranked) + EULER_GAMMA;
  let words = 0;
  for (const token of tokens(text)) {
    if (STOPWORDS.has(token)) continue;
    const found = vectors.lookup(token);
    if (!found) continue;
    const weight = a / (a + 1 / ((found.rank + 1) * harmonic));
    for (let d = 0; d < sum.length; d++) sum[d] += weight * found.vector[d];
    words++;
  }
  if (words === 0) return null;
  return unitOrNull(sum);
}

/** Words that end the head's noun phrase: prepositions and conjunctions. */
const PHRASE_ENDS = new Set(
  'in on at by with under above below near across along through during over into beneath among atop against toward towards from after before behind beside inside outside around past and while'.split(
    ' ',
  ),
);

/** Nouns in -ing that end a noun phrase rather than start a participle ("a team meeting"). */
const ING_NOUNS = new Set('meeting building painting ceiling clothing wedding evening morning pudding stocking'.split(' '));

/**
 * The head of the prompt's first noun phrase, what the picture is of: the last content word before
 * the first preposition or conjunction, or before a participle in -ing ("a **fox** in a snowy
 * forest", "a friendly **robot** waving hello", "a team **meeting** in an office", "a cup of
 * **coffee**", since "of" does not end the phrase). A heuristic without a tagger: undefined when
 * the prompt has no content word.
 */
export function headWord(text: string): string | undefined {
  const words = tokens(text);
  let head: string | undefined;
  for (const word of words) {
    if (PHRASE_ENDS.has(word)) {
      if (head) break;
      continue;
    }
    if (STOPWORDS.has(word)) continue;
    if (head && word.length > 5 && word.endsWith('ing') && !ING_NOUNS.has(word)) break;
    head = word;
  }
  return head;
}

/** The head word's own unit vector, or null when it has none. */
export function headVector(text: string, vectors: WordVectors): Float64Array | null {
  const head = headWord(text);
  const found = head === undefined ? undefined : vectors.lookup(head);
  return found ? unitOrNull(Float64Array.from(found.vector)) : null;
}

/**
 * `unit` without its components along `directions` (orthonormal, of the same length), at unit
 * length again; null when nothing is left. Directions of another length (another word-vector file,
 * the tests' tiny one) are not applied.
 */
export function withoutCommon(unit: Float64Array, directions: readonly (readonly number[])[]): Float64Array | null {
  if (directions.length === 0 || directions[0].length !== unit.length) return unit;
  for (const u of directions) {
    let dot = 0;
    for (let d = 0; d < unit.length; d++) dot += unit[d] * u[d];
    for (let d = 0; d < unit.length; d++) unit[d] -= dot * u[d];
  }
  return unitOrNull(unit);
}

/**
 * `unit`'s coordinates in `basis` (orthonormal rows of the same length), at unit length; `unit`
 * itself when the basis is of another length.
 */
export function inBasis(unit: Float64Array, basis: readonly (readonly number[])[]): Float64Array | null {
  if (basis.length === 0 || basis[0].length !== unit.length) return unit;
  const out = new Float64Array(basis.length);
  basis.forEach((row, i) => {
    let dot = 0;
    for (let d = 0; d < unit.length; d++) dot += unit[d] * row[d];
    out[i] = dot;
  });
  return unitOrNull(out);
}

function unitOrNull(v: Float64Array): Float64Array | null {
  let sum = 0;
  for (let d = 0; d < v.length; d++) sum += v[d] * v[d];
  const norm = Math.sqrt(sum);
  if (norm < 1e-9) return null;
  for (let d = 0; d < v.length; d++) v[d] /= norm;
  return v;
}
