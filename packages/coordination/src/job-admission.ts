import type Redis from 'ioredis';
import { AppError, type Admission, type ActiveJobs, type JobAdmission, type JobRecord, type JobStore, type SingleFlight } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import { decodeJobFields, encodeJobFields, redisJobKey } from '@promptpix/queue';
import { redisActiveJobsKey } from './active-jobs';
import { redisFlightKey } from './single-flight';

/**
 * Join, cap, claim and record in one call (the keys are the single-flight, active-jobs and job
 * store ones, so the worker's releases and the job store read what this writes). A holder whose
 * record is gone or failed is taken over. KEYS: job, flight ('' for none), active ('' for none).
 * ARGV: jobId, ttl ms, now ms, cap limit (-1 for none), job key prefix, then the record's fields.
 */
const OPEN = `
local jobKey, flightKey, activeKey = KEYS[1], KEYS[2], KEYS[3]
local jobId, ttl, now, limit, jobPrefix = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
if flightKey ~= '' then
  local holder = redis.call('GET', flightKey)
  if holder and holder ~= jobId then
    local status = redis.call('HGET', jobPrefix .. holder, 'status')
    if status and status ~= 'failed' then return {'joined', redis.call('HGETALL', jobPrefix .. holder)} end
  end
end
if limit >= 0 then
  redis.call('ZREMRANGEBYSCORE', activeKey, '-inf', now)
  if redis.call('ZCARD', activeKey) >= limit then return {'capped'} end
  redis.call('ZADD', activeKey, now + ttl, jobId)
  redis.call('PEXPIRE', activeKey, ttl)
end
if flightKey ~= '' then redis.call('SET', flightKey, jobId, 'PX', ttl) end
redis.call('DEL', jobKey)
redis.call('HSET', jobKey, unpack(ARGV, 6))
redis.call('PEXPIRE', jobKey, ttl)
return {'opened'}
`;

/** The live job holding a flight key, as HGETALL's flat list, or nil. ARGV: job key prefix. */
const HOLDER = `
local holder = redis.call('GET', KEYS[1])
if not holder then return false end
local status = redis.call('HGET', ARGV[1] .. holder, 'status')
if status and status ~= 'failed' then return redis.call('HGETALL', ARGV[1] .. holder) end
return false
`;

type WithAdmission = Redis & {
  promptpixOpenJob(jobKey: string, flightKey: string, activeKey: string, ...args: Array<string | number>): Promise<[string, string[]?]>;
  promptpixFlightHolder(flightKey: string, jobPrefix: string): Promise<string[] | null>;
};

const recordOf = (flat: string[]): JobRecord | null => {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]] = flat[i + 1];
  return decodeJobFields(hash);
};

/** Production: one round trip, atomic across gateway processes. */
export function createRedisJobAdmission(options: { redis: Redis; prefix: string }): JobAdmission {
  if (!('promptpixOpenJob' in options.redis)) {
    options.redis.defineCommand('promptpixOpenJob', { numberOfKeys: 3, lua: OPEN });
    options.redis.defineCommand('promptpixFlightHolder', { numberOfKeys: 1, lua: HOLDER });
  }
  const redis = options.redis as WithAdmission;
  const { prefix } = options;
  const jobPrefix = redisJobKey(prefix, '');
  return {
    async open({ job, ttlSeconds, nowMs, flightKey, cap }) {
      const [kind, flat] = await redis.promptpixOpenJob(
        redisJobKey(prefix, job.jobId),
        flightKey ? redisFlightKey(prefix, flightKey) : '',
        cap ? redisActiveJobsKey(prefix, cap.bucket) : '',
        job.jobId,
        ttlSeconds * 1000,
        nowMs,
        cap ? cap.limit : -1,
        jobPrefix,
        ...encodeJobFields(job),
      );
      if (kind === 'joined') {
        const joined = recordOf(flat ?? []);
        if (joined) return { kind, job: joined };
        throw new Error('The joined job record could not be read');
      }
      return kind === 'capped' ? { kind } : { kind: 'opened' };
    },
    async holder(flightKey) {
      const flat = await redis.promptpixFlightHolder(redisFlightKey(prefix, flightKey), jobPrefix);
      return flat ? recordOf(flat) : null;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Embedded: the same steps over the in-process ports. Claiming the flight and writing the record
 * are separate calls here, so a joiner that finds a holder without a record yet waits briefly for
 * it before taking over.
 */
export function createComposedJobAdmission(d: { singleFlight: SingleFlight; activeJobs: ActiveJobs; jobStore: JobStore }): JobAdmission {
  async function claim(flightKey: string, jobId: string, ttlSeconds: number): Promise<JobRecord | null> {
    for (let attempt = 0; ; attempt++) {
      const holder = await d.singleFlight.claim(flightKey, jobId, ttlSeconds);
      if (holder === null) return null;
      const joined = await d.jobStore.get(holder);
      if (joined && joined.status !== 'failed') return joined;
      if (attempt >= 40) throw new AppError('unavailable', ErrorMessages.serviceUnavailable, {}, { 'Retry-After': '1' });
      if (joined || attempt >= 20) await d.singleFlight.release(flightKey, holder);
      else await sleep(25);
    }
  }

  return {
    async open({ job, ttlSeconds, nowMs, flightKey, cap }): Promise<Admission> {
      if (flightKey) {
        const joined = await claim(flightKey, job.jobId, ttlSeconds);
        if (joined) return { kind: 'joined', job: joined };
      }
      const release = async () => {
        if (flightKey) await d.singleFlight.release(flightKey, job.jobId);
      };
      if (cap) {
        const { admitted } = await d.activeJobs.admit(cap.bucket, job.jobId, cap.limit, ttlSeconds, nowMs).catch(async (error: unknown) => {
          await release();
          throw error;
        });
        if (!admitted) {
          await release();
          return { kind: 'capped' };
        }
      }
      try {
        await d.jobStore.create(job, ttlSeconds);
      } catch (error) {
        await release();
        if (cap) await d.activeJobs.release(cap.bucket, job.jobId);
        throw error;
      }
      return { kind: 'opened' };
    },
    async holder(flightKey) {
      const holder = await d.singleFlight.holder(flightKey);
      const job = holder === null ? null : await d.jobStore.get(holder);
      return job && job.status !== 'failed' ? job : null;
    },
  };
}
