import type Redis from 'ioredis';
import type { PermitStore } from '@promptpix/core';
import { ADMIT_ACTIVE_LUA } from './active-jobs';

/** Prune lapsed permits, count, add if under the limit (KEYS[1]; ARGV: now, lease ms, limit, holder). */
const ACQUIRE = `${ADMIT_ACTIVE_LUA}
return 1
`;

/** Extend a live permit (KEYS[1]; ARGV: now, lease ms, holder); a lapsed one is removed and 0 returned. */
const RENEW = `
local now, lease, holder = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local score = tonumber(redis.call('ZSCORE', KEYS[1], holder))
if score == nil or score <= now then
  redis.call('ZREM', KEYS[1], holder)
  return 0
end
redis.call('ZADD', KEYS[1], now + lease, holder)
redis.call('PEXPIRE', KEYS[1], lease)
return 1
`;

type WithPermits = Redis & {
  promptpixAcquirePermit(key: string, now: number, leaseMs: number, limit: number, holder: string): Promise<[number, number] | number>;
  promptpixRenewPermit(key: string, now: number, leaseMs: number, holder: string): Promise<number>;
};

/** A sorted set per backend (`<prefix>permits:<model id>`) of holders, scored by when their lease lapses. */
export function createRedisPermitStore(options: { redis: Redis; prefix: string }): PermitStore {
  if (!('promptpixAcquirePermit' in options.redis)) {
    options.redis.defineCommand('promptpixAcquirePermit', { numberOfKeys: 1, lua: ACQUIRE });
    options.redis.defineCommand('promptpixRenewPermit', { numberOfKeys: 1, lua: RENEW });
  }
  const redis = options.redis as WithPermits;
  const key = (backend: string) => `${options.prefix}permits:${backend}`;
  return {
    async acquire(backend, holder, limit, leaseMs, nowMs) {
      // The shared script answers {0, count} when full, and falls through to `return 1` when it added.
      const reply = await redis.promptpixAcquirePermit(key(backend), nowMs, leaseMs, limit, holder);
      return reply === 1;
    },
    async renew(backend, holder, leaseMs, nowMs) {
      return (await redis.promptpixRenewPermit(key(backend), nowMs, leaseMs, holder)) === 1;
    },
    async release(backend, holder) {
      await redis.zrem(key(backend), holder);
    },
    async held(backends, nowMs) {
      if (backends.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const backend of backends) pipeline.zcount(key(backend), `(${nowMs}`, '+inf');
      const replies = (await pipeline.exec()) ?? [];
      return replies.map(([error, count]) => {
        if (error) throw error;
        return Number(count);
      });
    },
  };
}

/** The embedded shape's permits: one process, so a map. */
export function createMemoryPermitStore(): PermitStore {
  const backends = new Map<string, Map<string, number>>();
  const live = (backend: string, nowMs: number) => {
    const holders = backends.get(backend) ?? new Map<string, number>();
    backends.set(backend, holders);
    for (const [holder, lapsesAt] of holders) if (lapsesAt <= nowMs) holders.delete(holder);
    return holders;
  };
  return {
    async acquire(backend, holder, limit, leaseMs, nowMs) {
      const holders = live(backend, nowMs);
      if (holders.size >= limit) return false;
      holders.set(holder, nowMs + leaseMs);
      return true;
    },
    async renew(backend, holder, leaseMs, nowMs) {
      const holders = live(backend, nowMs);
      if (!holders.has(holder)) return false;
      holders.set(holder, nowMs + leaseMs);
      return true;
    },
    async release(backend, holder) {
      const holders = backends.get(backend);
      holders?.delete(holder);
      if (holders?.size === 0) backends.delete(backend);
    },
    async held(names, nowMs) {
      return names.map((backend) => live(backend, nowMs).size);
    },
  };
}
