import type Redis from 'ioredis';
import type { ActiveJobs, JobAdmission, JobStore } from '@promptpix/core';
import { encodeJobFields, redisJobKey } from '@promptpix/queue';
import { ADMIT_ACTIVE_LUA, redisActiveJobsKey } from './active-jobs';

/**
 * Cap slot and job record in one call, on the keys the active-jobs set and the job store use (so
 * the worker's release and the job store read what this writes). KEYS: active set, job hash.
 * ARGV: now ms, ttl ms, cap limit (-1 for none), jobId, then the record's fields.
 */
const OPEN = `
if ARGV[3] ~= '-1' then
${ADMIT_ACTIVE_LUA}
end
local jobKey, ttl = KEYS[2], tonumber(ARGV[2])
redis.call('DEL', jobKey)
redis.call('HSET', jobKey, unpack(ARGV, 5))
redis.call('PEXPIRE', jobKey, ttl)
return {1}
`;

type WithAdmission = Redis & { promptpixOpenJob(activeKey: string, jobKey: string, ...args: Array<string | number>): Promise<[number, number?]> };

/** Production: one round trip, atomic across gateway processes. */
export function createRedisJobAdmission(options: { redis: Redis; prefix: string }): JobAdmission {
  if (!('promptpixOpenJob' in options.redis)) options.redis.defineCommand('promptpixOpenJob', { numberOfKeys: 2, lua: OPEN });
  const redis = options.redis as WithAdmission;
  return {
    async open({ job, ttlSeconds, nowMs, cap }) {
      const activeKey = cap ? redisActiveJobsKey(options.prefix, cap.bucket) : redisActiveJobsKey(options.prefix, '');
      const [opened] = await redis.promptpixOpenJob(
        activeKey,
        redisJobKey(options.prefix, job.jobId),
        nowMs,
        ttlSeconds * 1000,
        cap ? cap.limit : -1,
        job.jobId,
        ...encodeJobFields(job),
      );
      return opened === 1 ? 'opened' : 'capped';
    },
  };
}

/** Embedded: the same two steps over the in-process ports (a failed record write gives the slot back). */
export function createComposedJobAdmission(d: { activeJobs: ActiveJobs; jobStore: JobStore }): JobAdmission {
  return {
    async open({ job, ttlSeconds, nowMs, cap }) {
      if (cap && !(await d.activeJobs.admit(cap.bucket, job.jobId, cap.limit, ttlSeconds, nowMs)).admitted) return 'capped';
      try {
        await d.jobStore.create(job, ttlSeconds);
      } catch (error) {
        if (cap) await d.activeJobs.release(cap.bucket, job.jobId);
        throw error;
      }
      return 'opened';
    },
  };
}
