/**
 * Fair dequeuing on Redis, in front of BullMQ's wait list (docs/architecture.md, "Fair
 * dequeuing"). Open-source BullMQ has no groups, so each group (account) keeps its own list of
 * waiting job ids here, and only its head, one job per group, is on BullMQ's wait list. When a
 * worker holds a group's head (taken, and not deferred for a full backend), the group's next job
 * joins the wait list at the back: workers take the groups in turn, each group's jobs in order,
 * and a group alone still fills every slot.
 *
 * Every step is one Lua script, so any number of gateways and workers agree, and the state lives
 * in Redis with the queue (kept through a restart by AOF). Keys, under `<prefix>:<queue>:fair:`:
 *   jobs      hash   jobId → group, for every job parked or released and not yet taken
 *   payloads  hash   jobId → its payload (JSON), for the same jobs
 *   heads     hash   group → its released job (on the wait list, or being added to it)
 *   released  hash   group → when its head was released (ms), for the sweep
 *   ring      zset   group → release sequence of its head: the order of turns in this round
 *   backlog   zset   group → how many of its jobs are parked
 *   q:<group> list   the group's parked job ids, oldest first
 *   parked    list   one entry per parked job: its length is what an autoscaler reads (LLEN)
 *   seq       string the release counter
 */
import type Redis from 'ioredis';

export function fairQueueKeys(prefix: string, queueName: string) {
  const base = `${prefix}:${queueName}:fair:`;
  return {
    base,
    /** One entry per job parked behind its group's head (KEDA's list trigger reads its length). */
    parked: `${base}parked`,
    backlog: `${base}backlog`,
    ring: `${base}ring`,
  };
}

/**
 * Shared by the scripts: the group's next parked job becomes its head (returned as { jobId,
 * payload } for the caller to add to BullMQ), or the group leaves the ring (returns false).
 */
const RELEASE_NEXT = `
local function forget(base, jobId)
  redis.call('HDEL', base .. 'jobs', jobId)
  redis.call('HDEL', base .. 'payloads', jobId)
end
local function releaseNext(base, group, now)
  local nextId = redis.call('LPOP', base .. 'q:' .. group)
  if nextId then
    if tonumber(redis.call('ZINCRBY', base .. 'backlog', -1, group)) <= 0 then redis.call('ZREM', base .. 'backlog', group) end
    redis.call('RPOP', base .. 'parked')
    redis.call('HSET', base .. 'heads', group, nextId)
    redis.call('HSET', base .. 'released', group, now)
    redis.call('ZADD', base .. 'ring', redis.call('INCR', base .. 'seq'), group)
    return { nextId, redis.call('HGET', base .. 'payloads', nextId) }
  end
  redis.call('HDEL', base .. 'heads', group)
  redis.call('HDEL', base .. 'released', group)
  redis.call('ZREM', base .. 'ring', group)
  return false
end
`;

/**
 * ARGV: base, BullMQ job key prefix, jobId, group, now, payload. Returns 0 for a job already known
 * (parked, released or in BullMQ), 1 when parked behind its group's head, 2 when it is the
 * group's head: the caller adds it to BullMQ.
 */
const ENQUEUE = `
local base, bullPrefix, jobId, group, now, payload = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if redis.call('HEXISTS', base .. 'jobs', jobId) == 1 or redis.call('EXISTS', bullPrefix .. jobId) == 1 then return 0 end
redis.call('HSET', base .. 'jobs', jobId, group)
redis.call('HSET', base .. 'payloads', jobId, payload)
if redis.call('HEXISTS', base .. 'heads', group) == 1 then
  redis.call('RPUSH', base .. 'q:' .. group, jobId)
  redis.call('ZINCRBY', base .. 'backlog', 1, group)
  redis.call('LPUSH', base .. 'parked', '1')
  return 1
end
redis.call('HSET', base .. 'heads', group, jobId)
redis.call('HSET', base .. 'released', group, now)
redis.call('ZADD', base .. 'ring', redis.call('INCR', base .. 'seq'), group)
return 2
`;

/**
 * A released job left the wait list: a worker took it, or it was removed, or its add failed.
 * ARGV: base, jobId, now. Returns the group's next job for the caller to add to BullMQ, or false.
 */
const LEFT = `${RELEASE_NEXT}
local base, jobId, now = ARGV[1], ARGV[2], ARGV[3]
local group = redis.call('HGET', base .. 'jobs', jobId)
if not group then return false end
forget(base, jobId)
if redis.call('HGET', base .. 'heads', group) ~= jobId then return false end
return releaseNext(base, group, now)
`;

/** ARGV: base, jobId. Returns 2 when a parked job was taken out, 1 when the job is a released head (remove it from BullMQ), 0 otherwise. */
const REMOVE_PARKED = `${RELEASE_NEXT}
local base, jobId = ARGV[1], ARGV[2]
local group = redis.call('HGET', base .. 'jobs', jobId)
if not group then return 0 end
if redis.call('HGET', base .. 'heads', group) == jobId then return 1 end
if redis.call('LREM', base .. 'q:' .. group, 1, jobId) == 0 then return 0 end
forget(base, jobId)
if tonumber(redis.call('ZINCRBY', base .. 'backlog', -1, group)) <= 0 then redis.call('ZREM', base .. 'backlog', group) end
redis.call('RPOP', base .. 'parked')
return 2
`;

/** Groups read one by one when placing a parked job; the rest are counted as if each had a long backlog. */
const POSITION_GROUPS_READ = 1000;

/**
 * ARGV: base, wait list key, jobId. Returns -1 when the job is not parked (a released head or an
 * unknown job: read the wait list), else the jobs ahead of it in round-robin order
 * (jobsAheadInRoundRobin in @promptpix/core, the same rule in Lua): its group's head and the
 * parked jobs before it, every other group's jobs up to one per turn, and the wait list's
 * entries that are no group's head (retries, recovered jobs), which go first.
 */
const POSITION = `
local base, waitKey, jobId = ARGV[1], ARGV[2], ARGV[3]
local group = redis.call('HGET', base .. 'jobs', jobId)
if not group or redis.call('HGET', base .. 'heads', group) == jobId then return -1 end
local index = redis.call('LPOS', base .. 'q:' .. group, jobId)
if not index then return -1 end
local own = index + 1
local ownSeq = redis.call('ZSCORE', base .. 'ring', group)
ownSeq = ownSeq and tonumber(ownSeq)
local heads = redis.call('ZCARD', base .. 'ring')
local ahead = own + math.max(0, redis.call('LLEN', waitKey) - heads)
local parkedGroups = redis.call('ZCARD', base .. 'backlog')
local read = redis.call('ZRANGE', base .. 'backlog', 0, ${POSITION_GROUPS_READ - 1}, 'WITHSCORES')
local headsCounted = ownSeq and 1 or 0
for i = 1, #read, 2 do
  local other = read[i]
  if other ~= group then
    local seq = redis.call('ZSCORE', base .. 'ring', other)
    local waiting = tonumber(read[i + 1])
    local turnBefore = 0
    if seq then
      waiting = waiting + 1
      headsCounted = headsCounted + 1
      if ownSeq and tonumber(seq) < ownSeq then turnBefore = 1 end
    end
    ahead = ahead + math.min(waiting, own + turnBefore)
  end
end
local unread = parkedGroups - math.floor(#read / 2)
if unread > 0 then
  ahead = ahead + unread * (own + 1)
  headsCounted = headsCounted + unread
end
-- Groups with only their head waiting take one turn each before this job.
ahead = ahead + math.max(0, heads - headsCounted)
return ahead
`;

/** ARGV: base. Returns { parked jobs, groups waiting, the largest backlog (head included) }. */
const STATS = `
local base = ARGV[1]
local largest = redis.call('ZREVRANGE', base .. 'backlog', 0, 0, 'WITHSCORES')
local groups = redis.call('ZCARD', base .. 'ring')
local most = 0
if #largest == 2 then most = tonumber(largest[2]) + 1 elseif groups > 0 then most = 1 end
return { redis.call('LLEN', base .. 'parked'), groups, most }
`;

/**
 * The safety net for a step that never ran (a worker killed between taking a head and releasing
 * the next, a gateway killed between releasing and adding). ARGV: base, BullMQ job key prefix,
 * now, staleMs. For every head released at least staleMs ago: taken by a worker (BullMQ set its
 * processedOn) and not deferred (in BullMQ's delayed set) → release the next; never added but
 * still accepted → add it again; gone (removed, or its add failed and the caller gave it up) →
 * release the next. Returns the jobs to add, as
 * a flat list of job id and payload pairs.
 */
const SWEEP = `${RELEASE_NEXT}
local base, bullPrefix, now, staleMs = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local toAdd = {}
local heads = redis.call('HGETALL', base .. 'heads')
for i = 1, #heads, 2 do
  local group, jobId = heads[i], heads[i + 1]
  local at = tonumber(redis.call('HGET', base .. 'released', group) or '0')
  if now - at >= staleMs then
    local bullKey = bullPrefix .. jobId
    local next = false
    if redis.call('EXISTS', bullKey) == 1 then
      -- Started by a worker and not waiting out a deferral: its group's turn was taken.
      if redis.call('HEXISTS', bullKey, 'processedOn') == 1 and not redis.call('ZSCORE', bullPrefix .. 'delayed', jobId) then
        forget(base, jobId)
        next = releaseNext(base, group, now)
      end
    elseif redis.call('HEXISTS', base .. 'jobs', jobId) == 1 then
      redis.call('HSET', base .. 'released', group, now)
      next = { jobId, redis.call('HGET', base .. 'payloads', jobId) }
    else
      next = releaseNext(base, group, now)
    end
    if next then
      table.insert(toAdd, next[1])
      table.insert(toAdd, next[2])
    end
  end
end
return toAdd
`;

/** A job the caller must add to BullMQ's wait list now. */
export interface ReleasedJob {
  jobId: string;
  /** The payload it was enqueued with (JSON). */
  payload: string;
}

interface FairCommands {
  fairEnqueue(...args: string[]): Promise<number>;
  fairLeft(...args: string[]): Promise<[string, string] | null>;
  fairRemoveParked(...args: string[]): Promise<number>;
  fairPosition(...args: string[]): Promise<number>;
  fairStats(...args: string[]): Promise<[number, number, number]>;
  fairSweep(...args: string[]): Promise<string[]>;
}

const SCRIPTS: Record<keyof FairCommands, string> = {
  fairEnqueue: ENQUEUE,
  fairLeft: LEFT,
  fairRemoveParked: REMOVE_PARKED,
  fairPosition: POSITION,
  fairStats: STATS,
  fairSweep: SWEEP,
};

function commandsOf(redis: Redis): FairCommands {
  const withCommands = redis as Redis & Partial<FairCommands>;
  if (!withCommands.fairEnqueue) {
    for (const [name, lua] of Object.entries(SCRIPTS)) redis.defineCommand(name, { numberOfKeys: 0, lua });
  }
  return withCommands as Redis & FairCommands;
}

export type FairEnqueueOutcome = 'known' | 'parked' | 'release';

export interface FairDispatch {
  /** Where a new job goes: nowhere (already known), parked behind its group's head, or released (add it to BullMQ now). */
  enqueue(redis: Redis, jobId: string, group: string, payload: string): Promise<FairEnqueueOutcome>;
  /** A released job left the wait list (taken, removed, or never added): the group's next job to add, if any. */
  left(redis: Redis, jobId: string): Promise<ReleasedJob | null>;
  /** 'removed' for a parked job taken out; 'released' for a head (remove it from BullMQ, then call `left`); 'unknown' otherwise. */
  removeParked(redis: Redis, jobId: string): Promise<'removed' | 'released' | 'unknown'>;
  /** Jobs ahead of a parked job in the fair order; null when it is not parked. */
  position(redis: Redis, jobId: string, waitKey: string): Promise<number | null>;
  stats(redis: Redis): Promise<{ parked: number; groupsWaiting: number; largestGroupBacklog: number }>;
  /** Heads released over `staleMs` ago whose next step never ran: the jobs to add to BullMQ. */
  sweep(redis: Redis, staleMs: number): Promise<ReleasedJob[]>;
}

/** The fair layer of one BullMQ queue; each call runs one script on the connection it is given. */
export function createFairDispatch(options: { prefix: string; queueName: string; now?: () => number }): FairDispatch {
  const { base } = fairQueueKeys(options.prefix, options.queueName);
  const bullPrefix = `${options.prefix}:${options.queueName}:`;
  const now = () => String(options.now?.() ?? Date.now());
  return {
    async enqueue(redis, jobId, group, payload) {
      const outcome = await commandsOf(redis).fairEnqueue(base, bullPrefix, jobId, group, now(), payload);
      return outcome === 2 ? 'release' : outcome === 1 ? 'parked' : 'known';
    },
    async left(redis, jobId) {
      const next = await commandsOf(redis).fairLeft(base, jobId, now());
      return next ? { jobId: next[0], payload: next[1] } : null;
    },
    async removeParked(redis, jobId) {
      const outcome = await commandsOf(redis).fairRemoveParked(base, jobId);
      return outcome === 2 ? 'removed' : outcome === 1 ? 'released' : 'unknown';
    },
    async position(redis, jobId, waitKey) {
      const ahead = await commandsOf(redis).fairPosition(base, waitKey, jobId);
      return ahead < 0 ? null : ahead;
    },
    async stats(redis) {
      const [parked, groupsWaiting, largestGroupBacklog] = await commandsOf(redis).fairStats(base);
      return { parked, groupsWaiting, largestGroupBacklog };
    },
    async sweep(redis, staleMs) {
      const flat = await commandsOf(redis).fairSweep(base, bullPrefix, now(), String(staleMs));
      const jobs: ReleasedJob[] = [];
      for (let i = 0; i < flat.length; i += 2) jobs.push({ jobId: flat[i], payload: flat[i + 1] });
      return jobs;
    },
  };
}
