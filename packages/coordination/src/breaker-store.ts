import type Redis from 'ioredis';
import type { BreakerStore } from '@promptpix/core';

/** Compare-and-set in one step: write ARGV[2] ('' deletes) only while the key holds ARGV[1] ('' = absent). */
const SWAP = `local cur = redis.call('GET', KEYS[1]) or ''
if cur ~= ARGV[1] then return {0, cur} end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
return {1, ''}`;

/** Breaker states lapse after a day untouched (a backend nobody called since). */
const STATE_TTL_SECONDS = 24 * 3600;

/** The circuit breakers' states in Redis, shared by every worker and gateway (`<prefix>breaker:<model id>`). */
export function createRedisBreakerStore(options: { redis: Redis; prefix: string }): BreakerStore {
  const key = (backend: string) => `${options.prefix}breaker:${backend}`;
  return {
    read: (backend) => options.redis.get(key(backend)),
    readMany: async (backends) => (backends.length === 0 ? [] : options.redis.mget(backends.map(key))),
    async swap(backend, expected, next) {
      const [done, current] = (await options.redis.eval(SWAP, 1, key(backend), expected ?? '', next ?? '', String(STATE_TTL_SECONDS))) as [number, string];
      return done === 1 ? { done: true } : { done: false, current: current === '' ? null : current };
    },
  };
}
