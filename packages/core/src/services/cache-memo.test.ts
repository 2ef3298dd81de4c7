import { createCacheMemo } from './cache-memo';
import type { CacheKey, CachedImage } from '../render-cache';

const key = (prompt: string, accountId = 'acc', seed: number | null = null): CacheKey => ({
  accountId,
  normalizedPrompt: prompt,
  style: null,
  characterId: null,
  ageBucket: null,
  seed,
  negativePrompt: null,
  model: null,
  inputKey: null,
});
const image = (id: string, seed = 7): CachedImage => ({
  id,
  storageKey: `images/${id}.webp`,
  width: 1024,
  height: 1024,
  format: 'webp',
  sourceImageId: null,
  rejected: false,
  createdAt: new Date(0),
  seed,
  derivedSizes: 0,
});

describe('cache memo', () => {
  let clock = 0;
  const now = () => clock;

  it('remembers keys that have images, never misses', async () => {
    const memo = createCacheMemo({ now });
    const read = jest.fn(async (k: CacheKey) => (k.normalizedPrompt === 'hit' ? [image('a')] : []));
    await memo.find(key('hit'), read);
    await memo.find(key('hit'), read);
    await memo.find(key('miss'), read);
    await memo.find(key('miss'), read);
    expect(read).toHaveBeenCalledTimes(3);
  });

  it('expires after the ttl and is evicted per account by images/account messages only', async () => {
    const memo = createCacheMemo({ now, ttlMs: 1000 });
    const read = jest.fn(async () => [image('a')]);
    await memo.find(key('p'), read);
    memo.invalidate({ kind: 'permalinks', accountId: 'acc' });
    memo.invalidate({ kind: 'images', accountId: 'other' });
    await memo.find(key('p'), read);
    expect(read).toHaveBeenCalledTimes(1);
    memo.invalidate({ kind: 'images', accountId: 'acc' });
    await memo.find(key('p'), read);
    expect(read).toHaveBeenCalledTimes(2);
    clock += 1001;
    await memo.find(key('p'), read);
    expect(read).toHaveBeenCalledTimes(3);
  });

  it('findMany answers every key, reading only the keys it does not hold, in one call', async () => {
    const memo = createCacheMemo({ now });
    // The database reads by prompt: rows of other keys with the same prompt come back too.
    const rows = (keys: CacheKey[]) =>
      keys
        .filter((k) => k.normalizedPrompt !== 'none')
        .flatMap((k) => [
          {
            ...image(k.normalizedPrompt),
            normalizedPrompt: k.normalizedPrompt,
            style: null,
            characterId: null,
            ageBucket: null,
            negativePrompt: null,
            model: null,
            inputKey: null,
          },
          {
            ...image(`${k.normalizedPrompt}-styled`),
            normalizedPrompt: k.normalizedPrompt,
            style: 'anime',
            characterId: null,
            ageBucket: null,
            negativePrompt: null,
            model: null,
            inputKey: null,
          },
        ]);
    const read = jest.fn(async (_a: string, keys: CacheKey[]) => rows(keys));
    const ids = (found: CachedImage[][]) => found.map((images) => images.map((i) => i.id));

    const first = await memo.findMany('acc', [key('a'), key('b'), key('none'), key('a')], read);
    expect(ids(first)).toEqual([['a'], ['b'], [], ['a']]);
    expect(read.mock.calls[0][1].map((k) => k.normalizedPrompt)).toEqual(['a', 'b', 'none']);

    const second = await memo.findMany('acc', [key('a'), key('b'), key('c')], read);
    expect(read).toHaveBeenCalledTimes(2);
    expect(read.mock.calls[1][1].map((k) => k.normalizedPrompt)).toEqual(['c']);
    expect(ids(second)).toEqual([['a'], ['b'], ['c']]);
    expect(await memo.find(key('c'), (k) => read('acc', [k]))).toHaveLength(1);
    expect(read).toHaveBeenCalledTimes(2);
  });
});

describe('cache memo and seeds', () => {
  it("a key with a seed gets only that seed's images; a key without one gets every seed's", async () => {
    const memo = createCacheMemo();
    const rows = [7, 8].map((seed) => ({
      ...image(`s${seed}`, seed),
      normalizedPrompt: 'p',
      style: null,
      characterId: null,
      ageBucket: null,
      negativePrompt: null,
      model: null,
      inputKey: null,
    }));
    const found = await memo.findMany('acc', [key('p', 'acc', 7), key('p', 'acc', 9), key('p')], async () => rows);
    expect(found.map((images) => images.map((i) => i.id))).toEqual([['s7'], [], ['s7', 's8']]);
  });

  it('findMany: concurrent misses of the same keys share one read; after an eviction a new read starts', async () => {
    const memo = createCacheMemo();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const read = jest.fn(async (_a: string, keys: CacheKey[]) => {
      await gate;
      return keys.map((k) => ({
        ...image(`img-${k.normalizedPrompt}`),
        normalizedPrompt: k.normalizedPrompt,
        style: null,
        characterId: null,
        ageBucket: null,
        negativePrompt: null,
        model: null,
        inputKey: null,
      }));
    });
    const keys = [key('herd-1'), key('herd-2')];
    const answers = Array.from({ length: 20 }, () => memo.findMany('acc', keys, read));
    // An image change while the read runs: a request from now on does not take the older read's answer.
    memo.invalidate({ kind: 'images', accountId: 'acc' });
    const after = memo.findMany('acc', keys, read);
    release();
    const all = await Promise.all([...answers, after]);
    expect(read).toHaveBeenCalledTimes(2);
    for (const images of all) expect(images.map((i) => i.map((x) => x.id))).toEqual([['img-herd-1'], ['img-herd-2']]);
  });

  it('findMany: a failed shared read fails every request that joined it, and the next one reads again', async () => {
    const memo = createCacheMemo();
    const failing = jest.fn(async () => {
      throw new Error('db down');
    });
    const results = await Promise.allSettled([memo.findMany('acc', [key('down')], failing), memo.findMany('acc', [key('down')], failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(failing).toHaveBeenCalledTimes(1);
    const ok = jest.fn(async () => []);
    await memo.findMany('acc', [key('down')], ok);
    expect(ok).toHaveBeenCalledTimes(1);
  });

  it("holds a batch read's images without their key columns: a long prompt is not kept once per image", async () => {
    const memo = createCacheMemo({ maxBytes: 64 * 2 ** 20 });
    const prompt = 'p'.repeat(2000);
    const rows = Array.from({ length: 50 }, (_, n) => ({
      ...image(`i${n}`, n),
      normalizedPrompt: prompt,
      style: null,
      characterId: null,
      ageBucket: null,
      negativePrompt: null,
      model: null,
      inputKey: null,
    }));
    const [found] = await memo.findMany('acc', [key(prompt)], async () => rows);
    expect(found).toHaveLength(50);
    expect(found[0]).toEqual(image('i0', 0));
    // One key of 2,000 characters and 50 small images: far less than 50 copies of the prompt.
    expect(memo.bytes()).toBeLessThan(50 * 2000);
  });
});

describe('cache memo: keys in use are read again before they expire', () => {
  const row = (k: CacheKey, id: string) => ({
    ...image(id),
    normalizedPrompt: k.normalizedPrompt,
    style: null,
    characterId: null,
    ageBucket: null,
    negativePrompt: null,
    model: null,
    inputKey: null,
  });
  const ids = (found: CachedImage[][]) => found.map((images) => images.map((i) => i.id));

  it('answers from memory near the expiry and reads once in the background; the next requests get the new images', async () => {
    let clock = 0;
    const memo = createCacheMemo({ now: () => clock, ttlMs: 1000, refreshAheadMs: 200 });
    let version = 'v1';
    let release!: () => void;
    let gate: Promise<void> = Promise.resolve();
    const read = jest.fn(async (_a: string, keys: CacheKey[]) => {
      await gate;
      return keys.map((k) => row(k, `${k.normalizedPrompt}-${version}`));
    });
    const keys = [key('a'), key('b')];
    expect(ids(await memo.findMany('acc', keys, read))).toEqual([['a-v1'], ['b-v1']]);
    clock += 799; // not yet within the refresh window
    await memo.findMany('acc', keys, read);
    expect(read).toHaveBeenCalledTimes(1);

    clock += 1; // within 200 ms of the expiry
    version = 'v2';
    gate = new Promise<void>((r) => (release = r));
    // The refresh is held: these requests are answered at once, from memory, and start no second read.
    const during = await Promise.all(Array.from({ length: 5 }, () => memo.findMany('acc', keys, read)));
    for (const found of during) expect(ids(found)).toEqual([['a-v1'], ['b-v1']]);
    expect(read).toHaveBeenCalledTimes(2);
    release();
    await new Promise((r) => setImmediate(r));

    clock += 500; // past the first expiry: the refreshed entries answer, no read
    expect(ids(await memo.findMany('acc', keys, read))).toEqual([['a-v2'], ['b-v2']]);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('never serves an entry after its expiry, even while a refresh runs', async () => {
    let clock = 0;
    const memo = createCacheMemo({ now: () => clock, ttlMs: 1000, refreshAheadMs: 200 });
    let release!: () => void;
    let calls = 0;
    const read = jest.fn(async (_a: string, keys: CacheKey[]) => {
      calls++;
      if (calls === 2) await new Promise<void>((r) => (release = r));
      return keys.map((k) => row(k, `${k.normalizedPrompt}-${calls}`));
    });
    await memo.findMany('acc', [key('a')], read);
    clock += 900;
    await memo.findMany('acc', [key('a')], read); // starts the held refresh
    clock += 200; // expired
    const late = memo.findMany('acc', [key('a')], read);
    let answered = false;
    void late.then(() => (answered = true));
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false); // it waits for the refresh rather than take the expired entry
    release();
    expect(ids(await late)).toEqual([['a-2']]);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it("a failed refresh is not the request's failure; a key whose images are gone is forgotten", async () => {
    let clock = 0;
    const memo = createCacheMemo({ now: () => clock, ttlMs: 1000, refreshAheadMs: 200 });
    await memo.findMany('acc', [key('a')], async (_a, keys) => keys.map((k) => row(k, 'a1')));
    clock += 850;
    const failing = jest.fn(async () => {
      throw new Error('db busy');
    });
    expect(ids(await memo.findMany('acc', [key('a')], failing))).toEqual([['a1']]);
    await new Promise((r) => setImmediate(r));
    expect(failing).toHaveBeenCalledTimes(1);
    const gone = jest.fn(async () => []);
    expect(ids(await memo.findMany('acc', [key('a')], gone))).toEqual([['a1']]);
    await new Promise((r) => setImmediate(r));
    expect(gone).toHaveBeenCalledTimes(1);
    expect(memo.peek(key('a'))).toBeUndefined();
  });
});
