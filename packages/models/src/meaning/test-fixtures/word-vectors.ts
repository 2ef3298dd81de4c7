import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The same builder `npm run build` runs, on a tiny file in the package's layout.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWordVectors } = require('../../../../../scripts/build-word-vectors.cjs') as {
  buildWordVectors(json: string, out: string, options?: { ranked?: number }): { words: number; bytes: number };
};

/** Word → [vector, frequency index], in the package's order (most frequent first). */
export const TINY_VECTORS: Record<string, [number[], number]> = {
  the: [[0.1, 0.1, 0.1, 0.1], 0],
  ',': [[0.2, 0.2, 0.2, 0.2], 1],
  cat: [[0.9, 0.1, -0.2, 0.05], 2],
  sun: [[-0.1, 0.8, 0.3, 0.0], 3],
  car: [[0.0, -0.3, 0.1, 0.95], 4],
  kitten: [[0.85, 0.2, -0.25, 0.0], 5],
  "o'clock": [[0.3, 0.3, 0.3, 0.3], 6],
  Paris: [[0.3, -0.3, 0.3, -0.3], 7],
  windowsill: [[0.4, 0.5, -0.2, 0.1], 8],
  antidisestablishmentarianism: [[1, 1, 1, 1], 9],
  zebra: [[0.5, -0.5, 0.5, 0.5], 10],
  aardvark: [[-2.54, 1.27, 0, 0.5], 11],
  rare: [[0.7, 0.7, 0.1, 0.1], 12],
};

/** Builds the tiny file (the 12 most frequent words considered) in a temporary folder. */
export function buildTinyWordVectors(): { file: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'promptpix-word-vectors-'));
  const words = Object.keys(TINY_VECTORS);
  const vectors = Object.fromEntries(words.map((w) => [w, [...TINY_VECTORS[w][0], Math.hypot(...TINY_VECTORS[w][0]), TINY_VECTORS[w][1]]]));
  const json = join(dir, 'tiny.json');
  writeFileSync(json, JSON.stringify({ precision: 8, l2NormIndex: 4, wordIndex: 5, size: words.length, dimensions: 4, words, vectors }));
  const file = join(dir, 'word-vectors.bin');
  buildWordVectors(json, file, { ranked: 12 });
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
