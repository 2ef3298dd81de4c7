import type { MeaningCalibration } from './ports/meaning';

/** The cosine of two unit vectors given as ascending term ids and weights. */
export function cosine(a: { terms: number[]; weights: number[] }, b: { terms: number[]; weights: number[] }): number {
  let sum = 0;
  for (let i = 0, j = 0; i < a.terms.length && j < b.terms.length; ) {
    if (a.terms[i] === b.terms[j]) sum += a.weights[i++] * b.weights[j++];
    else if (a.terms[i] < b.terms[j]) i++;
    else j++;
  }
  return sum;
}

/** An adapter's cosine on the shared 0..1 scale: linear between its floor and ceiling, clamped. */
export const calibrate = (cos: number, c: MeaningCalibration): number => Math.min(1, Math.max(0, (cos - c.floor) / (c.ceiling - c.floor)));

/**
 * The one instant-match score, whichever adapter runs: the better of the lexical match (pg_trgm
 * similarity, so a near-exact prompt still scores near 1) and the calibrated semantic one. Only
 * an exact prompt scores 1; any other match stays at or below NEAREST_MAX_SCORE.
 */
export const meaningScore = (m: { exact: boolean; trigram: number; cosine: number | null }, c: MeaningCalibration): number =>
  m.exact ? 1 : Math.min(NEAREST_MAX_SCORE, Math.max(m.trigram, m.cosine === null ? 0 : calibrate(m.cosine, c)));

export const NEAREST_MAX_SCORE = 0.99;
