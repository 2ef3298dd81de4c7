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
  /**
   * A found key used within this long of its expiry is read again in the background while the
   * remembered one answers (default a fifth of `ttlMs`; 0: never), so a key in steady use never
   * makes a request wait for the database. No entry is ever served after its expiry.
   */
  refreshAheadMs?: number;
  /** How long an unknown hash is remembered (bounds database reads under a flood of bad keys). */
  negativeTtlMs?: number;
  /** At most this many bytes of hashes and key records (estimated), oldest dropped first. */
  maxBytes?: number;
}

/**
 * In-process cache of key lookups, so the hot paths (polling, embed, render) authenticate without
 * a database read. Entries expire after `ttlMs` (a key in use is read again shortly before, in the
 * background: `refreshAheadMs`); revocations and account changes evict them at
 * once through `invalidate` (fed by the invalidation bus in every gateway process).
 */
export function createKeyCache<T extends CachedKey>(o: KeyCacheOptions<T>) {
  const now = o.now ?? Date.now;
  const ttlMs = o.ttlMs ?? 10_000;
  const negativeTtlMs = o.negativeTtlMs ?? 2_000;
  const refreshAheadMs = o.refreshAheadMs ?? ttlMs / 5;
  const entries = createByteBoundedMap<{ value: T | null; expiresAt: number }>({ maxBytes: o.maxBytes ?? KEY_CACHE_MAX_BYTES });
  type Read = { startedAt: number; value: Promise<T | null> };
  const inFlight = new Map<string, Read>();
  let generation = 0;

  function remember(hash: string, value: T | null) {
    entries.set(hash, { value, expiresAt: now() + (value ? ttlMs : negativeTtlMs) });
  }

  /** One database read of a hash, shared by whoever asks while it runs; remembered unless an invalidation came meanwhile. */
  function read(hash: string): Promise<T | null> {
    const startedAt = generation;
    const pending = o.lookup(hash).then((value) => {
      // An invalidation that arrived during the read may concern this very key: don't cache it.
      if (startedAt === generation) remember(hash, value);
      return value;
    });
    const entry: Read = {
      startedAt,
      value: pending.finally(() => {
        if (inFlight.get(hash) === entry) inFlight.delete(hash);
      }),
    };
    inFlight.set(hash, entry);
    return entry.value;
  }

  return {
    async get(hash: string): Promise<T | null> {
      const hit = entries.get(hash);
      const at = now();
      if (hit && hit.expiresAt > at) {
        if (hit.value !== null && hit.expiresAt - at <= refreshAheadMs && !inFlight.has(hash)) {
          // A failed refresh is left alone: the entry expires and the next request reads (and fails) itself.
          read(hash).catch(() => undefined);
        }
        return hit.value;
      }
      entries.delete(hash);
      // A read started before the last invalidation may return what it evicted: not joined.
      const running = inFlight.get(hash);
      return running && running.startedAt === generation ? running.value : read(hash);
    },

    invalidate(message: InvalidationMessage): void {
      generation++;
      entries.deleteWhere(
        ({ value: v }) =>
          v !== null && ((message.kind === 'key' && v.id === message.keyId) || (message.kind === 'account' && v.account.id === message.accountId)),
      );
    },

    size: () => entries.size(),
    /** Estimated bytes held. */
    bytes: () => entries.bytes(),
  };
}

export type KeyCache<T extends CachedKey> = ReturnType<typeof createKeyCache<T>>;
