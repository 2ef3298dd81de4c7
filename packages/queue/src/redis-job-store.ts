/**
 * Production job store: one Redis hash per job at `${prefix}job:${jobId}`, expiring `ttlSeconds`
 * after creation. Updates touch only an existing hash (one Lua round trip) and never extend its
 * lifetime. The Redis connection belongs to the caller.
 */
import { createHash, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { JobRecord, JobStore, RenderedImage } from '@promptpix/core';
import { decodeJobFields, encodeJobFields } from './job-record-codec';

export interface RedisJobStoreOptions {
  /** An ioredis connection owned (and closed) by the caller. */
  redis: Redis;
  /** Key prefix, e.g. `promptpix:`; keys are `${prefix}job:${jobId}`. */
  prefix: string;
}

/** The hash field naming the last update (not a JobRecord field: reads ignore it). */
const LAST_WRITE_FIELD = 'lastWrite';

/**
 * HSET only when the hash exists and, when ARGV[1] lists statuses ("queued,processing"), its
 * status is one of them; ARGV[1] is "" for no condition. HSET leaves the key's TTL alone.
 *
 * ARGV[2] names this write, and the hash keeps the name of the last one. ioredis resends a command
 * whose reply was lost when the connection dropped, so Redis can run the same update twice: the
 * second run finds its own write last and answers 1 again, where the condition would now fail
 * (a job marked processing would read "not started", and be dropped with its record stuck).
 */
const UPDATE_IF_EXISTS = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], '${LAST_WRITE_FIELD}') == ARGV[2] then return 1 end
if ARGV[1] ~= '' then
  local status = redis.call('HGET', KEYS[1], 'status') or ''
  if string.find(',' .. ARGV[1] .. ',', ',' .. status .. ',', 1, true) == nil then return 0 end
end
redis.call('HSET', KEYS[1], '${LAST_WRITE_FIELD}', unpack(ARGV, 2))
return 1
`;
const UPDATE_SHA = createHash('sha1').update(UPDATE_IF_EXISTS).digest('hex');

const IDENTITY_FIELDS = new Set(['jobId', 'accountId', 'createdAt', 'request']);

/** Writes the rendered image (KEYS[2]) only while the record (KEYS[1]) lives, expiring with it. */
const KEEP_RENDERED = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
redis.call('HSET', KEYS[2], 'meta', ARGV[1], 'data', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
`;

/** The hash of one job. */
export const redisJobKey = (prefix: string, jobId: string) => `${prefix}job:${jobId}`;
/** The image a job's model call made, kept for its retries (beside the job's hash, with its TTL). */
export const redisRenderedKey = (prefix: string, jobId: string) => `${prefix}job:${jobId}:rendered`;

export function createRedisJobStore({ redis, prefix }: RedisJobStoreOptions): JobStore {
  const keyOf = (jobId: string) => redisJobKey(prefix, jobId);
  // Unique across processes: this store's random name, then a counter.
  const storeName = randomBytes(9).toString('base64url');
  let writes = 0;

  const runUpdate = async (key: string, args: string[]): Promise<number> => {
    try {
      return (await redis.evalsha(UPDATE_SHA, 1, key, ...args)) as number;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await redis.eval(UPDATE_IF_EXISTS, 1, key, ...args)) as number;
    }
  };

  return {
    async create(record: JobRecord, ttlSeconds: number) {
      const key = keyOf(record.jobId);
      const ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
      const results = await redis
        .multi()
        .del(key)
        .hset(key, ...encodeJobFields(record))
        .pexpire(key, ttlMs)
        .exec();
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('Redis transaction was aborted');
    },

    async get(jobId) {
      return decodeJobFields(await redis.hgetall(keyOf(jobId)));
    },

    async update(jobId, patch, condition) {
      const fields = encodeJobFields(patch);
      const args: string[] = [condition ? condition.ifStatus.join(',') : '', `${storeName}:${++writes}`];
      for (let i = 0; i < fields.length; i += 2) {
        if (!IDENTITY_FIELDS.has(fields[i])) args.push(fields[i], fields[i + 1]);
      }
      return (await runUpdate(keyOf(jobId), args)) === 1;
    },

    async keepRendered(jobId, rendered) {
      const { data, ...meta } = rendered;
      return (await redis.eval(KEEP_RENDERED, 2, keyOf(jobId), redisRenderedKey(prefix, jobId), JSON.stringify(meta), data)) === 1;
    },

    async rendered(jobId) {
      const [meta, data] = await redis.hmgetBuffer(redisRenderedKey(prefix, jobId), 'meta', 'data');
      if (!meta || !data) return null;
      return { ...(JSON.parse(meta.toString('utf8')) as Omit<RenderedImage, 'data'>), data };
    },

    async dropRendered(jobId) {
      await redis.del(redisRenderedKey(prefix, jobId));
    },

    async ping() {
      await redis.ping();
    },

    /** The connection is the caller's: nothing to release here. */
    async close() {},
  };
}
