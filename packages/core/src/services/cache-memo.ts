import type { InvalidationMessage } from '../ports/coordination';
import { cacheKeysOfRow, cacheKeyString as keyOf, type CacheKey, type CachedImage, type CachedImageWithKey } from '../render-cache';
import { createByteBoundedMap, heapBytesOf } from './byte-bounded-map';

const imageOf = (r: CachedImageWithKey): CachedImage => ({
  id: r.id,
  storageKey: r.storageKey,
  width: r.width,
  height: r.height,
  format: r.format,
  sourceImageId: r.sourceImageId,
  rejected: r.rejected,
  createdAt: r.createdAt,
  seed: r.seed,
  derivedSizes: r.derivedSizes,
  revisedPrompt: r.revisedPrompt,
});

/** The memo's default share of the gateway's heap (docs/performance.md, "The gateway"). */
export const CACHE_MEMO_MAX_BYTES = 12 * 2 ** 20;

/**
 * Remembers, per render-cache key, the images stored under it, so repeat renders and embed
 * batches of cached prompts need no database read. Only keys that have images are remembered
 * (a miss is always asked again); an account's entries are evicted through the invalidation bus
 * whenever its images change (new image or variant, reject, pin), and expire after `ttlMs`. Keys
 * that `findMany` is asked for within `refreshAheadMs` of their expiry (default a fifth of `ttlMs`)
 * are read again in the background while the remembered images answer, so a batch in steady use
 * never waits for the database; nothing is served after its expiry. It holds at most `maxBytes`
 * of keys and images, oldest dropped first.
 */
export function createCacheMemo(o: { now?: () => number; ttlMs?: number; maxBytes?: number; refreshAheadMs?: number } = {}) {
  const now = o.now ?? Date.now;
  const ttlMs = o.ttlMs ?? 30_000;
  const refreshAheadMs = o.refreshAheadMs ?? ttlMs / 5;
  const entries = createByteBoundedMap<{ accountId: string; images: CachedImage[]; expiresAt: number }>({
    maxBytes: o.maxBytes ?? CACHE_MEMO_MAX_BYTES,
    sizeOf: (e) => 64 + heapBytesOf(e.accountId) + heapBytesOf(e.images),
  });
  let generation = 0;
  /**
   * findMany's reads in progress, by key: when remembered keys expire together (an embed batch's
   * 50), the concurrent requests that miss them share one read instead of queueing one each
   * (PGlite runs them one at a time, on the server's thread).
   */
  const reading = new Map<string, { startedAt: number; images: Promise<CachedImage[]> }>();

  const get = (id: string): CachedImage[] | undefined => {
    const hit = entries.get(id);
    if (hit && hit.expiresAt > now()) return hit.images;
    return undefined;
  };

  const put = (id: string, accountId: string, images: CachedImage[], startedAt: number) => {
    if (startedAt !== generation) return;
    // A key found empty is not remembered (nor kept, when a refresh finds its images gone).
    if (images.length === 0) entries.delete(id);
    else entries.set(id, { accountId, images, expiresAt: now() + ttlMs });
  };

  /** One `read` of these keys of one account, remembered and shared through `reading` while it runs. */
  function startRead(
    accountId: string,
    missing: Map<string, CacheKey>,
    read: (accountId: string, keys: CacheKey[]) => Promise<CachedImageWithKey[]>,
  ): Promise<Map<string, CachedImage[]>> {
    const startedAt = generation;
    const batch = read(accountId, [...missing.values()]).then((rows) => {
      const fresh = new Map<string, CachedImage[]>([...missing.keys()].map((id) => [id, []]));
      for (const row of rows) {
        // Remembered without its key's columns: a 2,000-character prompt on each of 50 rows
        // would otherwise be held 50 times over.
        const image = imageOf(row);
        for (const key of cacheKeysOfRow(accountId, row)) fresh.get(keyOf(key))?.push(image);
      }
      for (const [id, images] of fresh) put(id, accountId, images, startedAt);
      return fresh;
    });
    const started = [...missing.keys()].map((id) => {
      const images = batch.then((fresh) => fresh.get(id)!);
      // Awaited only by requests that join; a failure is theirs (and the caller's, through `batch`).
      images.catch(() => undefined);
      const entry = { startedAt, images };
      reading.set(id, entry);
      return [id, entry] as const;
    });
    return batch.finally(() => {
      for (const [id, entry] of started) if (reading.get(id) === entry) reading.delete(id);
    });
  }

  return {
    /** The images under one key if remembered (no read). */
    peek: (key: CacheKey): CachedImage[] | undefined => get(keyOf(key)),

    /** The images under one key, from memory or from `read`. */
    async find(key: CacheKey, read: (key: CacheKey) => Promise<CachedImage[]>): Promise<CachedImage[]> {
      const id = keyOf(key);
      const hit = get(id);
      if (hit) return hit;
      const startedAt = generation;
      const images = await read(key);
      put(id, key.accountId, images, startedAt);
      return images;
    },

    /**
     * The images under each of many keys of one account, in the keys' order (possibly empty): one
     * `read` for the keys not in memory. The arrays are shared: read only.
     */
    async findMany(
      accountId: string,
      keys: CacheKey[],
      read: (accountId: string, keys: CacheKey[]) => Promise<CachedImageWithKey[]>,
    ): Promise<CachedImage[][]> {
      const ids = keys.map(keyOf);
      const found = new Map<string, CachedImage[]>();
      const missing = new Map<string, CacheKey>();
      const expiring = new Map<string, CacheKey>();
      const joined = new Map<string, Promise<CachedImage[]>>();
      const at = now();
      ids.forEach((id, i) => {
        if (found.has(id) || missing.has(id) || joined.has(id)) return;
        const hit = entries.get(id);
        const running = reading.get(id);
        if (hit && hit.expiresAt > at) {
          found.set(id, hit.images);
          if (hit.expiresAt - at <= refreshAheadMs && !running) expiring.set(id, keys[i]);
        }
        // A read of this key already running (and started since the last eviction) answers us too.
        else if (running && running.startedAt === generation) joined.set(id, running.images);
        else missing.set(id, keys[i]);
      });
      // Keys in use are read again before they expire, in the background: this request is answered
      // from memory, and the next ones find them fresh (one read for the batch, shared).
      if (expiring.size > 0) startRead(accountId, expiring, read).catch(() => undefined);
      if (missing.size > 0) {
        for (const [id, images] of await startRead(accountId, missing, read)) found.set(id, images);
      }
      for (const [id, images] of joined) found.set(id, await images);
      return ids.map((id) => found.get(id)!);
    },

    invalidate(message: InvalidationMessage): void {
      if (message.kind !== 'images' && message.kind !== 'account') return;
      generation++;
      entries.deleteWhere((e) => e.accountId === message.accountId);
    },

    size: () => entries.size(),
    /** Estimated bytes held. */
    bytes: () => entries.bytes(),
  };
}

export type CacheMemo = ReturnType<typeof createCacheMemo>;
