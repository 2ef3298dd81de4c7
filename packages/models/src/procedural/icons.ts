/**
 * The open emoji sets the procedural model draws its subjects from, read from their Iconify JSON
 * files (`@iconify-json/fluent-emoji-flat`, MIT, and `@iconify-json/noto`, Apache-2.0; see NOTICE).
 * Fluent Emoji Flat comes first (flat shapes that suit the painted scenes); Noto fills the gaps
 * (a lighthouse, for one).
 *
 * The files are 9 and 25 MB. Like the WordNet reader, nothing is parsed up front: on first use
 * each file is scanned once for where its icons start and end (a map of about 7,000 names to byte
 * ranges), and an icon's JSON is read from disk when a prompt needs it, then kept in a small LRU.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

export interface Icon {
  /** The set's prefix: `fluent-emoji-flat` or `noto`. */
  readonly set: string;
  /** The icon's name in its set, e.g. `police-car`. */
  readonly name: string;
  /** SVG markup inside an `<svg viewBox="0 0 width height">`. */
  readonly body: string;
  readonly width: number;
  readonly height: number;
}

export interface IconSets {
  /** Whether some set has an icon of this name (lower case, words joined by `-`). */
  has(name: string): boolean;
  /** The icon of this name, from the first set that has it. */
  get(name: string): Icon | undefined;
  /** Every name (for the matcher's index). */
  names(): Iterable<string>;
}

interface SetFile {
  readonly prefix: string;
  readonly path: string;
  readonly width: number;
  readonly height: number;
  /** Name → [start, end) of `"name": {...}` in the file. */
  readonly ranges: ReadonlyMap<string, readonly [number, number]>;
}

const ENTRY = Buffer.from('\n\t\t"');
const ENTRY_END = Buffer.from('\n\t\t}');

/** Skin-tone variants: the base icon stands for them. */
const variant = /-(tone\d|light|dark|medium|medium-light|medium-dark)(-skin-tone)?$|-skin-tone-/;

const scan = (prefix: string, path: string): SetFile => {
  const file = readFileSync(path);
  const sizeOf = (key: string, fallback: number) => {
    const m = new RegExp(`\\n\\t"${key}": (\\d+)`).exec(file.toString('latin1', file.length - 200));
    return m ? Number(m[1]) : fallback;
  };
  const iconsAt = file.indexOf('\n\t"icons": {');
  const aliasesAt = file.indexOf('\n\t"aliases": {');
  const ranges = new Map<string, readonly [number, number]>();
  const parents = new Map<string, string>();
  for (let at = file.indexOf(ENTRY, iconsAt); at >= 0; at = file.indexOf(ENTRY, at + 1)) {
    const keyEnd = file.indexOf('"', at + 4);
    const name = file.toString('latin1', at + 4, keyEnd);
    const end = file.indexOf(ENTRY_END, keyEnd);
    if (end < 0) break;
    if (aliasesAt >= 0 && at > aliasesAt) {
      const parent = /"parent": "([^"]+)"/.exec(file.toString('latin1', keyEnd, end))?.[1];
      if (parent && !variant.test(name)) parents.set(name, parent);
    } else ranges.set(name, [at + 1, end + 4]);
    at = end;
  }
  // A variant goes when its base is there ("traffic-light" stays: there is no "traffic").
  for (const name of [...ranges.keys()]) {
    const base = name.replace(variant, '');
    if (base !== name && (ranges.has(base) || name.includes('-skin-tone'))) ranges.delete(name);
  }
  for (const [name, parent] of parents) {
    const range = ranges.get(parent);
    if (range && !ranges.has(name)) ranges.set(name, range);
  }
  return { prefix, path, width: sizeOf('width', 16), height: sizeOf('height', 16), ranges };
};

const readEntry = (set: SetFile, name: string): Icon | undefined => {
  const range = set.ranges.get(name);
  if (!range) return undefined;
  const [start, end] = range;
  const buffer = Buffer.alloc(end - start);
  const fd = openSync(set.path, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, start);
  } finally {
    closeSync(fd);
  }
  const entry = Object.values(JSON.parse(`{${buffer.toString('utf8')}}`) as Record<string, { body: string; width?: number; height?: number }>)[0];
  return { set: set.prefix, name, body: entry.body, width: entry.width ?? set.width, height: entry.height ?? set.height };
};

/** Where the sets are installed, in order of preference. */
const SET_FILES: ReadonlyArray<readonly [string, string]> = [
  ['fluent-emoji-flat', '@iconify-json/fluent-emoji-flat/icons.json'],
  ['noto', '@iconify-json/noto/icons.json'],
];

const CACHED_ICONS = 64;

/** The sets at `files` ([prefix, path] pairs, in order of preference), scanned on first use. */
export const openIconSets = (files: ReadonlyArray<readonly [string, string]>): IconSets => {
  let sets: SetFile[] | undefined;
  const load = () => (sets ??= files.map(([prefix, path]) => scan(prefix, path)));
  const cache = new Map<string, Icon | null>();
  return {
    has: (name) => load().some((s) => s.ranges.has(name)),
    get(name) {
      let icon = cache.get(name);
      if (icon === undefined) {
        const set = load().find((s) => s.ranges.has(name));
        icon = (set && readEntry(set, name)) ?? null;
        if (cache.size >= CACHED_ICONS) cache.delete(cache.keys().next().value as string);
      } else cache.delete(name);
      cache.set(name, icon);
      return icon ?? undefined;
    },
    *names() {
      const seen = new Set<string>();
      for (const set of load())
        for (const name of set.ranges.keys())
          if (!seen.has(name)) {
            seen.add(name);
            yield name;
          }
    },
  };
};

let shared: IconSets | undefined;

/** The installed sets, shared by the process; nothing is read before the first prompt asks. */
export const iconSets = (): IconSets => (shared ??= openIconSets(SET_FILES.map(([prefix, module]) => [prefix, require.resolve(module)] as const)));
