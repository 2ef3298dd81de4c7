import type Redis from 'ioredis';
import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from '@promptpix/core';

/** What is kept under a key: the body's fingerprint and, once finished, the response. */
interface Entry {
  fingerprint: string;
  response?: StoredResponse;
}

const outcome = (entry: Entry, fingerprint: string): IdempotencyBegin => {
  if (entry.fingerprint !== fingerprint) return { kind: 'mismatch' };
  return entry.response ? { kind: 'replay', response: entry.response } : { kind: 'in_progress' };
};

const DELETE_IF_EQUAL = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** SET NX GET: claim the key or read what holds it, in one round trip (Redis 7). */
export function createRedisIdempotencyStore(options: { redis: Redis; prefix: string }): IdempotencyStore {
  const key = (k: string) => `${options.prefix}idem:${k}`;
  const pending = (fingerprint: string) => JSON.stringify({ fingerprint } satisfies Entry);
  return {
    async begin(k, fingerprint, pendingSeconds) {
      const previous = (await options.redis.call('SET', key(k), pending(fingerprint), 'NX', 'GET', 'EX', String(pendingSeconds))) as string | null;
      return previous === null ? { kind: 'started' } : outcome(JSON.parse(previous) as Entry, fingerprint);
    },
    async finish(k, fingerprint, response, ttlSeconds) {
      await options.redis.set(key(k), JSON.stringify({ fingerprint, response } satisfies Entry), 'EX', ttlSeconds);
    },
    async abandon(k, fingerprint) {
      await options.redis.eval(DELETE_IF_EQUAL, 1, key(k), pending(fingerprint));
    },
  };
}

/** The embedded equivalent: a map with expiry, swept as it grows. */
export function createMemoryIdempotencyStore(now: () => number = Date.now): IdempotencyStore {
  const entries = new Map<string, Entry & { expiresAt: number }>();
  const live = (k: string) => {
    const entry = entries.get(k);
    if (entry && entry.expiresAt <= now()) entries.delete(k);
    return entries.get(k);
  };
  let inserts = 0;
  const sweepNow = () => {
    for (const [k, entry] of entries) if (entry.expiresAt <= now()) entries.delete(k);
  };
  return {
    async begin(k, fingerprint, pendingSeconds) {
      const entry = live(k);
      if (entry) return outcome(entry, fingerprint);
      if (++inserts % 1000 === 0) sweepNow();
      entries.set(k, { fingerprint, expiresAt: now() + pendingSeconds * 1000 });
      return { kind: 'started' };
    },
    async finish(k, fingerprint, response, ttlSeconds) {
      entries.set(k, { fingerprint, response, expiresAt: now() + ttlSeconds * 1000 });
    },
    async abandon(k, fingerprint) {
      const entry = live(k);
      if (entry && !entry.response && entry.fingerprint === fingerprint) entries.delete(k);
    },
  };
}
