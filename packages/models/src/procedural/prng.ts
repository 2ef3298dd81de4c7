const encoder = new TextEncoder();

/** murmur3's finaliser: spreads every input bit over the whole 32-bit word. */
const fmix32 = (x: number): number => {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
};

/** FNV-1a over the UTF-8 bytes of `text`, finalised: a small, stable 32-bit hash. */
export const hash32 = (text: string): number => {
  let h = 0x811c9dc5;
  for (const byte of encoder.encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
};

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  range(min: number, max: number): number;
  /** Integer in [min, max], both ends included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  /**
   * An independent stream named `label`, derived from this stream's seed (not its position), so
   * drawing more numbers in one part of a picture never shifts another part.
   */
  fork(label: string): Rng;
}

/** mulberry32: tiny, fast, good enough for pictures. */
export const createRng = (seed: number): Rng => {
  const base = seed >>> 0;
  let state = base;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const range = (min: number, max: number) => min + (max - min) * next();
  return {
    next,
    range,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
    fork: (label) => createRng(fmix32(base ^ hash32(label))),
  };
};
