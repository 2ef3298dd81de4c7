import type Redis from 'ioredis';
import type { ActiveJobs } from '@promptpix/core';

/**
 * Prune expired entries, count, add if under the limit (on KEYS[1] with ARGV[1..4] = now, ttl ms,
 * limit, member). Shared with the job admission script, which runs it before writing the record.
 */
export const ADMIT_ACTIVE_LUA = `
local activeKey, now, ttl, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', activeKey, '-inf', now)
local count = redis.call('ZCARD', activeKey)
if count >= limit then return {0, count} end
redis.call('ZADD', activeKey, now + ttl, member)
-- Every entry has the same time to live, so the newest one outlives the rest.
redis.call('PEXPIRE', activeKey, ttl)
`;

/** One Lua call (one round trip) shared by every gateway. */
const ADMIT = `${ADMIT_ACTIVE_LUA}
return {1, count + 1}
`;

type WithAdmit = Redis & { promptpixAdmitActive(key: string, now: number, ttlMs: number, limit: number, member: string): Promise<[number, number]> };

export const redisActiveJobsKey = (prefix: string, bucket: string) => `${prefix}active:${bucket}`;

/** A sorted set per key of job ids, scored by when they stop counting. */
export function createRedisActiveJobs(options: { redis: Redis; prefix: string }): ActiveJobs {
  if (!('promptpixAdmitActive' in options.redis)) options.redis.defineCommand('promptpixAdmitActive', { numberOfKeys: 1, lua: ADMIT });
  const redis = options.redis as WithAdmit;
  const key = (bucket: string) => redisActiveJobsKey(options.prefix, bucket);
  return {
    async admit(bucket, jobId, limit, ttlSeconds, nowMs) {
      const [admitted, active] = await redis.promptpixAdmitActive(key(bucket), nowMs, ttlSeconds * 1000, limit, jobId);
      return { admitted: admitted === 1, active };
    },
    async release(bucket, jobId) {
      await options.redis.zrem(key(bucket), jobId);
    },
  };
}

export function createMemoryActiveJobs(): ActiveJobs {
  const buckets = new Map<string, Map<string, number>>();
  return {
    async admit(bucket, jobId, limit, ttlSeconds, nowMs) {
      const jobs = buckets.get(bucket) ?? new Map<string, number>();
      buckets.set(bucket, jobs);
      for (const [id, expiresAt] of jobs) if (expiresAt <= nowMs) jobs.delete(id);
      if (jobs.size >= limit) return { admitted: false, active: jobs.size };
      jobs.set(jobId, nowMs + ttlSeconds * 1000);
      return { admitted: true, active: jobs.size };
    },
    async release(bucket, jobId) {
      const jobs = buckets.get(bucket);
      jobs?.delete(jobId);
      if (jobs?.size === 0) buckets.delete(bucket);
    },
  };
}
