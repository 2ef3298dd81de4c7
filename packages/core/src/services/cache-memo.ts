import type { InvalidationMessage } from '../ports/coordination';
import { cacheKeyString as keyOf, type CacheKey, type CachedImage } from '../render-cache';

/**
 * Remembers, per render-cache key, the images stored under it, so repeat renders and embed
 * batches of cached prompts need no database read. Only keys that have images are remembered
 * (a miss is always asked again); an account's entries are evicted through the invalidation bus
 * whenever its images change (new image or variant, reject, pin), and expire after `ttlMs`.
 */
export function createCacheMemo(o: { now?: () => number; ttlMs?: number; maxEntries?: number } = {}) {
  const now = o.now ?? Date.now;
  const ttlMs = o.ttlMs ?? 30_000;
  const maxEntries = o.maxEntries ?? 50_000;
  const entries = new Map<string, { accountId: string; images: CachedImage[]; expiresAt: number }>();
  let generation = 0;

  const get = (key: CacheKey): CachedImage[] | undefined => {
    const hit = entries.get(keyOf(key));
    if (hit && hit.expiresAt > now()) return hit.images;
    return undefined;
  };

  const put = (key: CacheKey, images: CachedImage[], startedAt: number) => {
    if (images.length === 0 || startedAt !== generation) return;
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(keyOf(key), { accountId: key.accountId, images, expiresAt: now() + ttlMs });
  };

  return {
    /** The images under one key, from memory or from `read`. */
    async find(key: CacheKey, read: (key: CacheKey) => Promise<CachedImage[]>): Promise<CachedImage[]> {
      const hit = get(key);
      if (hit) return hit;
      const startedAt = generation;
      const images = await read(key);
      put(key, images, startedAt);
      return images;
    },

    /** The images under many keys of one account: one `read` for the keys not in memory. */
    async findMany<T extends CachedImage & Omit<CacheKey, 'accountId'>>(
      accountId: string,
      keys: CacheKey[],
      read: (accountId: string, keys: CacheKey[]) => Promise<T[]>,
    ): Promise<Array<CachedImage & Omit<CacheKey, 'accountId'>>> {
      const found: Array<CachedImage & Omit<CacheKey, 'accountId'>> = [];
      const missing: CacheKey[] = [];
      for (const key of keys) {
        const hit = get(key);
        const { accountId: _, ...fields } = key;
        if (hit) found.push(...hit.map((image) => ({ ...image, ...fields })));
        else missing.push(key);
      }
      if (missing.length === 0) return found;
      const startedAt = generation;
      const rows = await read(accountId, missing);
      for (const key of missing) {
        put(key, rows.filter((r) => r.normalizedPrompt === key.normalizedPrompt && r.style === key.style && r.characterId === key.characterId && r.ageBucket === key.ageBucket), startedAt);
      }
      return [...found, ...rows];
    },

    invalidate(message: InvalidationMessage): void {
      if (message.kind !== 'images' && message.kind !== 'account') return;
      generation++;
      for (const [key, e] of entries) if (e.accountId === message.accountId) entries.delete(key);
    },

    size: () => entries.size,
  };
}

export type CacheMemo = ReturnType<typeof createCacheMemo>;
