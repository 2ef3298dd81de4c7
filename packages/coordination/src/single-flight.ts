import type Redis from 'ioredis';
import type { SingleFlight } from '@promptpix/core';

const RELEASE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** SET NX GET: claim or learn the holder in one round trip (Redis 7). */
export function createRedisSingleFlight(options: { redis: Redis; prefix: string }): SingleFlight {
  const key = (k: string) => `${options.prefix}inflight:${k}`;
  return {
    async claim(k, owner, ttlSeconds) {
      const previous = await options.redis.call('SET', key(k), owner, 'NX', 'GET', 'EX', String(ttlSeconds));
      return (previous as string | null) ?? null;
    },
    async release(k, owner) {
      await options.redis.eval(RELEASE_IF_OWNER, 1, key(k), owner);
    },
  };
}

export function createMemorySingleFlight(now: () => number = Date.now): SingleFlight {
  const holders = new Map<string, { owner: string; expiresAt: number }>();
  return {
    async claim(k, owner, ttlSeconds) {
      const current = holders.get(k);
      if (current && current.expiresAt > now()) return current.owner;
      holders.set(k, { owner, expiresAt: now() + ttlSeconds * 1000 });
      return null;
    },
    async release(k, owner) {
      if (holders.get(k)?.owner === owner) holders.delete(k);
    },
  };
}
