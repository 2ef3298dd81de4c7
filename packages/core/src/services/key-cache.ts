import type { InvalidationMessage } from '../ports/coordination';
import { createByteBoundedMap } from './byte-bounded-map';

/** The key cache's default share of the gateway's heap. */
export const KEY_CACHE_MAX_BYTES = 3 * 2 ** 20;

export interface CachedKey {
  id: string;
  account: { id: string };
}

export interface KeyCacheOptions<T extends CachedKey> {
  /** The database read: the live key with this hash and its account, or null. */
  lookup(hash: string): Promise<T | null>;
  now?: () => number;
  /** How long a found key is trusted without asking the database again. */
  ttlMs?: number;
  /** How long an unknown hash is remembered (bounds database reads under a flood of bad keys). */
  negativeTtlMs?: number;
  /** At most this many bytes of hashes and key records (estimated), oldest dropped first. */
  maxBytes?: number;
}

/**
 * In-process cache of key lookups, so the hot paths (polling, embed, render) authenticate without
 * a database read. Entries expire after `ttlMs`; revocations and account changes evict them at
 * once through `invalidate` (fed by the invalidation bus in every gateway process).
 */
export function createKeyCache<T extends CachedKey>(o: KeyCacheOptions<T>) {
  const now = o.now ?? Date.now;
  const ttlMs = o.ttlMs ?? 10_000;
  const negativeTtlMs = o.negativeTtlMs ?? 2_000;
  const entries = createByteBoundedMap<{ value: T | null; expiresAt: number }>({ maxBytes: o.maxBytes ?? KEY_CACHE_MAX_BYTES });
  const inFlight = new Map<string, Promise<T | null>>();
  let generation = 0;

  function remember(hash: string, value: T | null) {
    entries.set(hash, { value, expiresAt: now() + (value ? ttlMs : negativeTtlMs) });
  }

  return {
    async get(hash: string): Promise<T | null> {
      const hit = entries.get(hash);
      if (hit && hit.expiresAt > now()) return hit.value;
      entries.delete(hash);
      const pending = inFlight.get(hash);
      if (pending) return pending;
      const startedAt = generation;
      const read = o.lookup(hash).finally(() => inFlight.delete(hash));
      inFlight.set(hash, read);
      const value = await read;
      // An invalidation that arrived during the read may concern this very key: don't cache it.
      if (startedAt === generation) remember(hash, value);
      return value;
    },

    invalidate(message: InvalidationMessage): void {
      generation++;
      entries.deleteWhere(({ value: v }) => v !== null && ((message.kind === 'key' && v.id === message.keyId) || (message.kind === 'account' && v.account.id === message.accountId)));
    },

    size: () => entries.size(),
    /** Estimated bytes held. */
    bytes: () => entries.bytes(),
  };
}

export type KeyCache<T extends CachedKey> = ReturnType<typeof createKeyCache<T>>;
