/**
 * Locality-sensitive keys of a dense vector: random-hyperplane sign bits, cut into bands, one key
 * per band (`band × 2^bits + code`). Vectors closer in angle share more bands, so the library's GIN
 * index over the keys finds the candidates without pgvector. The hyperplanes are seeded by the
 * vector length: the same in every process.
 */
import { createRng } from '../procedural/prng';

export interface Bands {
  bands: number;
  bits: number;
}

const planeCache = new Map<string, Float32Array>();

export function hyperplanes(dimensions: number, { bands, bits }: Bands): Float32Array {
  const id = `${dimensions}/${bands}/${bits}`;
  let found = planeCache.get(id);
  if (!found) {
    const rng = createRng(dimensions);
    found = Float32Array.from({ length: bands * bits * dimensions }, () => rng.range(-1, 1));
    planeCache.set(id, found);
  }
  return found;
}

/** One key per band of `unit` (a vector of `dimensions` values), in 0 .. bands × 2^bits - 1. */
export function bandKeys(unit: ArrayLike<number>, planes: Float32Array, { bands, bits }: Bands): number[] {
  const keys: number[] = [];
  const n = unit.length;
  for (let band = 0; band < bands; band++) {
    let code = 0;
    for (let bit = 0; bit < bits; bit++) {
      const offset = (band * bits + bit) * n;
      let projection = 0;
      for (let d = 0; d < n; d++) projection += planes[offset + d] * unit[d];
      code = (code << 1) | (projection >= 0 ? 1 : 0);
    }
    keys.push(band * (1 << bits) + code);
  }
  return keys;
}
