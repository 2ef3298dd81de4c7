import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createByteBoundedMap, heapBytesOf } from './byte-bounded-map';
import { createCacheMemo } from './cache-memo';
import { createKeyCache } from './key-cache';
import { createPermalinkCache, type PermalinkForServing } from './permalink-cache';
import { createRecentQuota } from './recent-quota';
import { memoizePromptSafety } from '../safety/memoized-safety';
import type { CacheKey, CachedImage } from '../render-cache';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A flat (sequential) copy, as JSON.parse and the database driver hand strings to us. */
const flat = (s: string): string => JSON.parse(JSON.stringify(s)) as string;
const uuid = (i: number) => flat(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const MiB = 2 ** 20;
const BUDGET = 8 * MiB;
// Only an upper bound: in a full run, memory that earlier test files in the same Jest worker still
// held at the baseline can be freed during the fill (the cache memo's growth read 1.2 MiB, and once
// -16 MiB, against 5.6 MiB alone), so a lower bound on the growth cannot be asserted reliably here.

/**
 * Fills a cache with entries until it has dropped some, then checks the heap it really holds:
 * never more than its byte budget (plus 10% and 1 MiB of measuring noise).
 */
async function heapGrowthWhenFull(fill: (i: number) => Promise<void> | void, full: () => boolean) {
  const before = heapUsed();
  let i = 0;
  while (!full()) await fill(i++);
  for (let extra = 0; extra < i / 4; extra++) await fill(i + extra);
  const growth = heapUsed() - before;
  if (process.env.SHOW_HEAP) process.stdout.write(`growth ${(growth / MiB).toFixed(2)} MiB after ${i} entries\n`);
  return growth;
}

describe('heapBytesOf', () => {
  it.each<[string, unknown, number]>([
    ['a Latin-1 string, a byte a character', 'a'.repeat(100), 132],
    ['any wider character makes it 2 bytes a character', 'ж'.repeat(100), 232],
    ['a number', 42, 16],
    ['null', null, 0],
    ['a date', new Date(0), 56],
    ['an array of two numbers', [1, 2], 40 + 2 * 24],
  ])('%s', (_, value, bytes) => {
    expect(heapBytesOf(value)).toBe(bytes);
  });

  it('ends on a cyclic value', () => {
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    expect(heapBytesOf(cyclic)).toBeGreaterThan(1024);
  });

  it('counts nested objects', () => {
    expect(heapBytesOf({ a: { b: 'xy' } })).toBeGreaterThan(heapBytesOf({ b: 'xy' }) + heapBytesOf('xy'));
  });
});

describe('createByteBoundedMap', () => {
  it('keeps its estimated bytes under the budget, dropping the oldest first', () => {
    const map = createByteBoundedMap<string>({ maxBytes: 64 * 1024 });
    for (let i = 0; i < 1000; i++) map.set(`k${i}`, 'v'.repeat(100));
    expect(map.bytes()).toBeLessThanOrEqual(64 * 1024);
    expect(map.size()).toBeLessThan(1000);
    expect(map.get('k999')).toBeDefined();
    expect(map.get('k0')).toBeUndefined();
  });

  it('refuses an entry larger than a sixteenth of the budget and keeps the others', () => {
    const map = createByteBoundedMap<string>({ maxBytes: 16 * 1024 });
    map.set('small', 'x');
    expect(map.set('huge', 'x'.repeat(2000))).toBe(false);
    expect(map.get('huge')).toBeUndefined();
    expect(map.get('small')).toBe('x');
  });

  it('touch moves an entry to the end of the eviction order; replacing an entry counts it once', () => {
    const map = createByteBoundedMap<string>({ maxBytes: 4096 });
    map.set('a', '1');
    const one = map.bytes();
    map.set('a', '2');
    expect(map.bytes()).toBe(one);
    map.set('b', '1');
    map.touch('a');
    while (map.get('b') !== undefined) map.set(`f${map.size()}${Math.random()}`, '1');
    expect(map.get('a')).toBe('2');
  });

  it('deleteWhere drops matching entries and their bytes', () => {
    const map = createByteBoundedMap<number>({ maxBytes: 64 * 1024 });
    for (let i = 0; i < 10; i++) map.set(`k${i}`, i);
    map.deleteWhere((v) => v % 2 === 0);
    expect(map.size()).toBe(5);
    for (let i = 0; i < 10; i += 2) map.delete(`k${i + 1}`);
    expect(map.bytes()).toBe(0);
  });
});

/**
 * The gateway's caches filled with the largest entries a caller can cause hold no more heap than
 * their byte budgets: what lets the gateway run under a fixed old-generation limit.
 */
describe('the gateway caches stay within their byte budgets on the real heap', () => {
  jest.setTimeout(60_000);

  it('the cache memo: 2,000-character two-byte prompts and negative prompts, 50 images under each key', async () => {
    const memo = createCacheMemo({ maxBytes: BUDGET });
    let dropped = false;
    const key = (i: number): CacheKey => ({
      accountId: uuid(i % 7),
      normalizedPrompt: flat(`${i} ${'ж'.repeat(1995)}`),
      style: flat('watercolor'),
      characterId: uuid(i),
      ageBucket: 'adults',
      seed: null,
      negativePrompt: flat(`${i} ${'ж'.repeat(1995)}`),
      // A model id is one the operator configured (up to 100 characters), not the caller's text.
      model: flat('m'.repeat(100)),
      inputKey: null,
    });
    const images = (i: number): CachedImage[] =>
      Array.from({ length: 50 }, (_, n) => ({
        id: uuid(i * 100 + n),
        storageKey: flat(`images/${uuid(i % 7)}/${uuid(i * 100 + n)}.webp`),
        width: 256 + n,
        height: 1024,
        format: 'webp',
        sourceImageId: n === 0 ? null : uuid(i * 100),
        rejected: false,
        createdAt: new Date(1_700_000_000_000 + n),
        seed: 1_234_567 + n,
        derivedSizes: n === 0 ? 24 : 0,
      }));
    const growth = await heapGrowthWhenFull(
      async (i) => {
        const before = memo.size();
        await memo.find(key(i), async () => images(i));
        if (memo.size() <= before) dropped = true;
      },
      () => dropped,
    );
    expect(memo.bytes()).toBeLessThanOrEqual(BUDGET);
    expect(growth).toBeLessThanOrEqual(BUDGET * 1.1 + MiB);
  });

  it('the key cache: a flood of unknown keys, and keys with their accounts', async () => {
    const cache = createKeyCache<{ id: string; account: { id: string } }>({
      maxBytes: BUDGET,
      lookup: async (hash) =>
        hash.startsWith('0')
          ? null
          : {
              id: uuid(Number.parseInt(hash.slice(0, 8), 16)),
              kind: 'publishable',
              name: flat('ж'.repeat(100)),
              prefix: flat(hash.slice(0, 12)),
              hash,
              domains: Array.from({ length: 20 }, (_, d) => flat(`${d}.${'a'.repeat(240)}.example`)),
              createdAt: new Date(),
              revokedAt: null,
              lastUsedAt: new Date(),
              budgetClientHour: 30,
              budgetClientDay: 100,
              budgetKeyHour: 100,
              budgetKeyDay: 300,
              signingSecret: flat(`pks_${hash}`),
              requireSignedPrompts: false,
              account: {
                id: uuid(7),
                email: flat('someone@example.com'),
                handle: flat('someone'),
                name: flat('ж'.repeat(100)),
                plan: 'pro',
                status: 'active',
                quotaUsed: 10,
                quotaPeriodStart: new Date(),
                monthlyGenerations: null,
                createdAt: new Date(),
              },
            },
    });
    const hash = (i: number) => flat((i % 2 === 0 ? '0' : '1') + i.toString(16).padStart(63, 'f'));
    const growth = await heapGrowthWhenFull(
      (i) => cache.get(hash(i)).then(() => undefined),
      () => cache.size() > 0 && cache.size() < 5_000 && cache.bytes() > BUDGET * 0.9,
    );
    expect(growth).toBeLessThanOrEqual(BUDGET * 1.1 + MiB);
  });

  it('the permalink cache: 200-character handles and names that match nothing, and permalinks of many images', async () => {
    const cache = createPermalinkCache({
      maxBytes: BUDGET,
      load: async (handle, name): Promise<PermalinkForServing | null> =>
        handle.startsWith('0')
          ? null
          : {
              id: uuid(name.length),
              accountId: uuid(1),
              images: Array.from({ length: 40 }, (_, n) => ({
                imageId: uuid(n),
                addedAt: new Date(),
                storageKey: flat(`images/${uuid(1)}/${uuid(n)}.webp`),
                pinned: n === 0,
                rejected: false,
              })),
              publishableKeyDomains: Array.from({ length: 5 }, (_, k) => [flat(`${k}.${'a'.repeat(60)}.example`)]),
            },
    });
    const growth = await heapGrowthWhenFull(
      (i) => cache.serve(flat(`${i % 3 === 0 ? 1 : 0}${String(i).padStart(199, 'h')}`), flat(String(i).padStart(200, 'n')), undefined).then(() => undefined),
      () => cache.bytes() > BUDGET * 0.9,
    );
    expect(growth).toBeLessThanOrEqual(BUDGET * 1.1 + MiB);
  });

  it('the prompt safety verdicts: 2,000-character two-byte prompts', () => {
    let checks = 0;
    const safety = memoizePromptSafety(
      { check: () => (checks++ % 2 === 0 ? { allowed: true } : { allowed: false, reason: flat('Prompt contains blocked content') }) },
      BUDGET,
    );
    const before = heapUsed();
    for (let i = 0; i < 3_000; i++) safety.check(flat(`${i} ${'ж'.repeat(1995)}`), 'kids');
    const growth = heapUsed() - before;
    expect(growth).toBeLessThanOrEqual(BUDGET * 1.1 + MiB);
  });

  it('the recent quota: one entry per account', async () => {
    const maxBytes = 2 * MiB;
    const recent = createRecentQuota(async () => ({ used: 12, limit: 100, resetAt: new Date() }), { maxBytes, ttlMs: 60_000 });
    const before = heapUsed();
    for (let i = 0; i < 20_000; i++) await recent({ id: uuid(i), plan: 'pro', monthlyGenerations: null, quotaUsed: 0, quotaPeriodStart: new Date(0) });
    const growth = heapUsed() - before;
    expect(growth).toBeLessThanOrEqual(maxBytes * 1.1 + MiB);
  });
});
