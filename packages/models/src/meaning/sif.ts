/**
 * A sentence vector from word vectors by smooth inverse frequency (SIF, Arora et al. 2017): the
 * sum of the content words' vectors, each weighted a / (a + p(w)) so that frequent words ("man",
 * "old") count less than rare ones ("lighthouse"), at unit length. p(w) is estimated from the
 * word's frequency rank by Zipf's law: 1 / ((rank + 1) · (ln N + γ)).
 */
import type { WordVectors } from './word-vectors';

export const SIF_A = 1e-4;
const EULER_GAMMA = 0.5772;

const STOPWORDS = new Set(
  'a an the of in on at by with and or to for from into over under above below near across along through during its it is are be this that some someone something his her their my your our very'.split(' '),
);

/** The prompt's unit sentence vector, or null when none of its words has a vector. */
export function sifVector(text: string, vectors: WordVectors, a = SIF_A): Float64Array | null {
  const sum = new Float64Array(vectors.dimensions);
  const harmonic = Math.log(vectors.ranked) + EULER_GAMMA;
  let words = 0;
  for (const token of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (STOPWORDS.has(token)) continue;
    const found = vectors.lookup(token);
    if (!found) continue;
    const weight = a / (a + 1 / ((found.rank + 1) * harmonic));
    for (let d = 0; d < sum.length; d++) sum[d] += weight * found.vector[d];
    words++;
  }
  const norm = Math.hypot(...sum);
  if (words === 0 || norm === 0) return null;
  for (let d = 0; d < sum.length; d++) sum[d] /= norm;
  return sum;
}
