/**
 * A dense embedding (an upstream server's or a local model's) stored as the same sparse shape as
 * the WordNet concepts: one term per dimension, unit length, and found through locality-sensitive
 * band keys (band-keys.ts), so the library's GIN index finds the candidates on PostgreSQL without
 * pgvector as well as on PGlite.
 */
import type { MeaningVector } from '@promptpix/core';
import { bandKeys, hyperplanes, type Bands } from './band-keys';

/**
 * 24 bands of 9 sign bits: two vectors at cosine 0.75 share a band with probability ~0.9,
 * unrelated ones (cosine ~0.1) ~0.08: the candidates stay a slice of the library.
 */
const DENSE_BANDS: Bands = { bands: 24, bits: 9 };

/** A dense vector as a unit MeaningVector (term = dimension) with its band keys. */
export function denseToMeaning(vector: ArrayLike<number>): MeaningVector {
  let sum = 0;
  for (let d = 0; d < vector.length; d++) sum += vector[d] * vector[d];
  const norm = Math.sqrt(sum) || 1;
  const weights = Array.from(vector, (v) => v / norm);
  return { terms: weights.map((_, d) => d), weights, keys: bandKeys(weights, hyperplanes(vector.length, DENSE_BANDS), DENSE_BANDS) };
}
