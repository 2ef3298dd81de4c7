/** Seeds run from 0 to 2^32 - 1 (the seed field's bounds). */
const SEED_SPACE = 2 ** 32;

/**
 * The seeds of `n` distinct takes of one prompt (the OpenAI surface's `n`). With the caller's
 * seed: that seed and the ones after it, so the same request gives the same takes. Without one:
 * the first take leaves the seed open, so the render cache can answer it, and every other take
 * draws a seed of its own, none twice.
 */
export function seedsOfTakes(n: number, seed: number | undefined, draw: () => number): Array<number | undefined> {
  if (seed !== undefined) return Array.from({ length: n }, (_, i) => (seed + i) % SEED_SPACE);
  const drawn = new Set<number>();
  while (drawn.size < n - 1) drawn.add(draw());
  return [undefined, ...drawn];
}
