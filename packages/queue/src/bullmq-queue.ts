/**
 * Production queue: BullMQ on Redis. The jobId is the BullMQ job id, so enqueueing the same job
 * twice adds it once. Producer and consumer use separate connections: the producer fails fast
 * while Redis is down (no offline queue, few retries) so a request gets an error instead of
 * hanging; the worker's connection retries forever, as BullMQ requires.
 *
 * Jobs reach BullMQ's wait list through the fair layer (./fair-dispatch.ts): one job per group
 * (account) at a time, the group's next one once a worker holds it (JobAttempt.started).
 */
import { DelayedError, Queue, UnrecoverableError, WaitingError, Worker, type Job, type JobsOptions } from 'bullmq';
import Redis from 'ioredis';
import {
  isJobDeferred,
  PermanentJobError,
  SHARED_GROUP,
  type ConsumerOptions,
  type GenerationJobHandler,
  type GenerationJobPayload,
  type GenerationQueue,
  type QueueConsumer,
  type QueueDepth,
} from '@promptpix/core';
import { isPermanentJobError, toError } from './errors';
import { createFairDispatch, fairQueueKeys, type ReleasedJob } from './fair-dispatch';

export interface BullGenerationQueueOptions {
  redisUrl: string;
  /** BullMQ key prefix (no trailing colon), e.g. `promptpix`; keys are `${prefix}:${queueName}:*`. */
  prefix: string;
  queueName?: string;
  /** Tries per job, the first included (default 3). */
  attempts?: number;
  /** Delay before retry n is backoffMs * 2^(n-1) (default 1000). */
  backoffMs?: number;
  /** How often a worker looks for jobs whose worker died (default 30 s). */
  stalledIntervalMs?: number;
  /** How long a worker's claim on a job lasts without renewal (default 30 s). */
  lockDurationMs?: number;
  /** How long completed jobs are kept, for dedupe and inspection (default 3600). */
  removeOnCompleteAgeSeconds?: number;
  /** How long failed jobs are kept (default 7 days). */
  removeOnFailAgeSeconds?: number;
  /** How long enqueue/depth wait for the producer connection before failing (default 3000 ms). */
  producerReadyTimeoutMs?: number;
  /** Connection and worker errors, and errors thrown by onFinalFailure (default: console.error). */
  onError?: (error: Error) => void;
  /**
   * Take the groups' jobs in turn (default true). Off, every job goes straight to BullMQ's wait
   * list in arrival order (the webhook queue, whose deliveries are short and bounded per job).
   */
  fair?: boolean;
  /** How often each worker looks for a fair-queue step that never ran (default 5000 ms). */
  fairSweepIntervalMs?: number;
}

export const DEFAULT_QUEUE_NAME = 'generation';

/**
 * Redis keys of a BullMQ queue. Waiting jobs are on two lists, which an autoscaler reads with
 * LLEN: `wait`, each group's head (what workers take next), and `parked`, one entry per job
 * waiting behind its group's head (./fair-dispatch.ts). `active` is a list; `delayed`,
 * `prioritized`, `completed`, `failed` sorted sets.
 */
export function bullQueueKeys(prefix: string, queueName: string = DEFAULT_QUEUE_NAME) {
  const base = `${prefix}:${queueName}`;
  return {
    wait: `${base}:wait`,
    parked: fairQueueKeys(prefix, queueName).parked,
    active: `${base}:active`,
    delayed: `${base}:delayed`,
    prioritized: `${base}:prioritized`,
    completed: `${base}:completed`,
    failed: `${base}:failed`,
    /** Every key of the queue matches this pattern. */
    pattern: `${base}:*`,
  };
}

/** Enqueue failed because Redis is not reachable right now (answer 503, not 500). */
export class QueueUnavailableError extends Error {
  override name = 'QueueUnavailableError';
}

const JOB_NAME = 'generate';

function parsePayload(data: unknown): GenerationJobPayload {
  const d = data as Partial<GenerationJobPayload> | null;
  if (d?.v !== 1 || typeof d.jobId !== 'string' || d.jobId.length === 0) {
    throw new PermanentJobError(`Unsupported job payload: ${JSON.stringify(data)}`);
  }
  return { v: 1, jobId: d.jobId };
}

function waitUntilReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  if (redis.status === 'end') return Promise.reject(new QueueUnavailableError('Queue connection is closed'));
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('end', onEnd);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onEnd = () => done(new QueueUnavailableError('Queue connection is closed'));
    const timer = setTimeout(() => done(new QueueUnavailableError(`Redis not reachable within ${timeoutMs} ms`)), timeoutMs);
    redis.on('ready', onReady);
    redis.on('end', onEnd);
  });
}

/** QUIT when connected (lets replies drain); otherwise stop reconnecting at once. */
async function closeConnection(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit();
      return;
    } catch {
      // fall through
    }
  }
  redis.disconnect();
}

export function createBullGenerationQueue(options: BullGenerationQueueOptions): GenerationQueue {
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const attempts = Math.max(1, options.attempts ?? 3);
  const backoffMs = Math.max(0, options.backoffMs ?? 1000);
  const readyTimeoutMs = options.producerReadyTimeoutMs ?? 3000;
  const onError = options.onError ?? ((error: Error) => console.error(`bullmq queue ${queueName}:`, error));
  const prefix = options.prefix.replace(/:+$/, '');
  const fair = options.fair === false ? null : createFairDispatch({ prefix, queueName });
  const sweepIntervalMs = options.fairSweepIntervalMs ?? 5000;
  const jobOptions = (jobId: string): JobsOptions => ({ jobId });
  const defaultJobOptions: JobsOptions = {
    attempts,
    backoff: { type: 'exponential', delay: backoffMs },
    removeOnComplete: { age: options.removeOnCompleteAgeSeconds ?? 3600 },
    removeOnFail: { age: options.removeOnFailAgeSeconds ?? 7 * 24 * 3600 },
  };
  const addToWaitList = (queue: Queue, { jobId, payload }: ReleasedJob) => queue.add(JOB_NAME, JSON.parse(payload) as unknown, jobOptions(jobId));

  // Created on first use: a worker-only process never opens the producer connection.
  let producer: { redis: Redis; queue: Queue } | null = null;
  const consumers = new Set<QueueConsumer>();
  let closed = false;

  const getProducer = () => {
    if (closed) throw new Error('Queue is closed');
    if (!producer) {
      const redis = new Redis(options.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: readyTimeoutMs,
        connectionName: `${prefix}:${queueName}:producer`,
        // The adds of concurrent requests in one tick go out as one write (group commit on the wire).
        enableAutoPipelining: true,
      });
      redis.on('error', (e: Error) => onError(e));
      const queue = new Queue(queueName, { connection: redis, prefix, defaultJobOptions });
      queue.on('error', (e: Error) => onError(e));
      producer = { redis, queue };
    }
    return producer;
  };

  const readyProducer = async () => {
    const p = getProducer();
    await waitUntilReady(p.redis, readyTimeoutMs);
    return p;
  };
  const readyQueue = async () => (await readyProducer()).queue;

  const consume = (handler: GenerationJobHandler, consumerOptions: ConsumerOptions): QueueConsumer => {
    if (closed) throw new Error('Queue is closed');
    const connection = new Redis(options.redisUrl, {
      maxRetriesPerRequest: null,
      connectionName: `${prefix}:${queueName}:worker`,
    });
    connection.on('error', (e: Error) => onError(e));
    // Adds the group's next job when this worker takes a head; on the worker's connection, which
    // waits out a Redis blip instead of failing (the sweep covers a worker killed in between).
    const releases = fair && new Queue(queueName, { connection, prefix, defaultJobOptions });
    releases?.on('error', (e: Error) => onError(e));
    const releaseNextOf = async (jobId: string) => {
      if (!fair || !releases) return;
      try {
        const next = await fair.left(connection, jobId);
        if (next) await addToWaitList(releases, next);
      } catch (e) {
        onError(toError(e));
      }
    };
    const sweep = async () => {
      if (!fair || !releases) return;
      try {
        for (const job of await fair.sweep(connection, sweepIntervalMs)) await addToWaitList(releases, job);
      } catch (e) {
        onError(toError(e));
      }
    };
    const sweeper = fair ? setInterval(() => void sweep(), sweepIntervalMs) : undefined;
    sweeper?.unref();

    /** Jobs whose final failure was already reported from inside the processor. */
    const reported = new WeakSet<Job>();
    const reporting = new Set<Promise<void>>();
    const reportFinalFailure = async (payload: GenerationJobPayload, error: Error) => {
      try {
        await consumerOptions.onFinalFailure(payload, error);
      } catch (e) {
        onError(toError(e));
      }
    };

    // Aborted once a closing worker's grace period is over: its running jobs go back to the queue.
    const handBack = new AbortController();
    const worker = new Worker(
      queueName,
      async (job: Job, token?: string) => {
        const maxAttempts = job.opts.attempts ?? attempts;
        const attempt = job.attemptsMade + 1;
        let payload: GenerationJobPayload = { v: 1, jobId: String(job.id) };
        // The group's next job joins the back of the wait list now, or (holdTurnUntilStarted) once
        // this one holds its slot (the handler says so) or ends without being deferred. A deferred
        // job keeps its group's turn: the group's later jobs stay parked, not cycling through delays.
        let releasing: Promise<void> | null = null;
        let deferred = false;
        const started = () => {
          releasing ??= releaseNextOf(String(job.id));
        };
        if (!consumerOptions.holdTurnUntilStarted) {
          // Released before the handler runs: a job enqueued from now on queues behind the group's next.
          started();
          await releasing;
        }
        try {
          payload = parsePayload(job.data);
          await handler(payload, { attempt, maxAttempts, handBack: handBack.signal, started });
        } catch (thrown) {
          if (isJobDeferred(thrown) && token) {
            deferred = true;
            // Back to the delayed set, its attempts untouched (skipAttempt), its slot free at once.
            await job.moveToDelayed(Date.now() + thrown.delayMs, token);
            throw new DelayedError();
          }
          if (handBack.signal.aborted && token) {
            // Back to the waiting list with its attempts untouched; another worker takes it now,
            // not after a lock expiry. WaitingError tells BullMQ the job has already moved.
            await job.moveToWait(token);
            consumerOptions.onHandedBack?.(payload);
            throw new WaitingError();
          }
          const error = toError(thrown);
          const permanent = isPermanentJobError(error);
          if (permanent || attempt >= maxAttempts) {
            // Reported here, while this worker still holds the job's lock, and awaited: the job
            // only moves to `failed` once the caller has recorded the failure.
            reported.add(job);
            await reportFinalFailure(payload, error);
            if (permanent) throw new UnrecoverableError(error.message);
          }
          throw error;
        } finally {
          if (!deferred) started();
          await releasing;
        }
      },
      {
        connection,
        prefix,
        concurrency: consumerOptions.concurrency,
        autorun: true,
        ...(options.stalledIntervalMs !== undefined && { stalledInterval: options.stalledIntervalMs }),
        ...(options.lockDurationMs !== undefined && { lockDuration: options.lockDurationMs }),
      },
    );
    worker.on('error', (e: Error) => onError(e));
    // Failures BullMQ decides without running the processor (a job that stalled too often).
    worker.on('failed', (job: Job | undefined, error: Error) => {
      if (!job || reported.has(job)) return;
      const final = error instanceof UnrecoverableError || error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? attempts);
      if (!final) return;
      let payload: GenerationJobPayload;
      try {
        payload = parsePayload(job.data);
      } catch {
        payload = { v: 1, jobId: String(job.id) };
      }
      const p = reportFinalFailure(payload, error).finally(() => reporting.delete(p));
      reporting.add(p);
    });

    let closing: Promise<void> | null = null;
    const consumer: QueueConsumer = {
      close() {
        closing ??= (async () => {
          const grace = consumerOptions.shutdownGraceMs;
          const timer = grace === undefined ? undefined : setTimeout(() => handBack.abort(), grace);
          clearInterval(sweeper);
          try {
            await worker.close();
            while (reporting.size > 0) await Promise.allSettled([...reporting]);
          } finally {
            clearTimeout(timer);
            consumers.delete(consumer);
            await releases?.close().catch((e: unknown) => onError(toError(e)));
            await closeConnection(connection);
          }
        })();
        return closing;
      },
    };
    consumers.add(consumer);
    return consumer;
  };

  return {
    async enqueue(payload, enqueueOptions = {}) {
      const { redis, queue } = await readyProducer();
      if (!fair) {
        await queue.add(JOB_NAME, payload, jobOptions(payload.jobId));
        return;
      }
      const released = { jobId: payload.jobId, payload: JSON.stringify(payload) };
      if ((await fair.enqueue(redis, released.jobId, enqueueOptions.group ?? SHARED_GROUP, released.payload)) !== 'release') return;
      try {
        await addToWaitList(queue, released);
      } catch (error) {
        // Not on the wait list: the group's turn passes to its next job (or, if Redis is gone
        // now, the sweep gives it on once the head is found missing).
        await fair
          .left(redis, payload.jobId)
          .then((next) => (next ? addToWaitList(queue, next) : undefined))
          .catch(() => undefined);
        throw error;
      }
    },

    consume,

    async depth(): Promise<QueueDepth> {
      const { redis, queue } = await readyProducer();
      const [c, groups] = await Promise.all([
        queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed'),
        fair ? fair.stats(redis) : Promise.resolve({ parked: 0, groupsWaiting: 0, largestGroupBacklog: 0 }),
      ]);
      const listed = (c.waiting ?? 0) + (c.prioritized ?? 0);
      return {
        waiting: listed + groups.parked,
        active: c.active ?? 0,
        delayed: c.delayed ?? 0,
        failed: c.failed ?? 0,
        // Without the fair layer every waiting job is in one group.
        groupsWaiting: fair ? groups.groupsWaiting : listed > 0 ? 1 : 0,
        largestGroupBacklog: fair ? groups.largestGroupBacklog : listed,
      };
    },

    async position(jobId) {
      const { redis } = await readyProducer();
      const parked = fair && (await fair.position(redis, jobId, bullQueueKeys(prefix, queueName).wait));
      if (typeof parked === 'number') return parked;
      const wait = bullQueueKeys(prefix, queueName).wait;
      // BullMQ LPUSHes a new job and workers take from the tail, so the jobs ahead of this one
      // are those after its index. RANK -1 searches from the tail, where the next jobs are.
      const replies = (await redis.multi().lpos(wait, jobId, 'RANK', -1).llen(wait).exec()) ?? [];
      const [[indexError, index] = [null, null], [lengthError, length] = [null, 0]] = replies;
      if (indexError || lengthError) throw indexError ?? lengthError;
      return typeof index === 'number' ? Number(length) - 1 - index : null;
    },

    async remove(jobId) {
      const { redis, queue } = await readyProducer();
      if (fair && (await fair.removeParked(redis, jobId)) === 'removed') return true;
      // BullMQ's remove answers 1 for an unknown id too, so look first; a worker taking the job in
      // between holds its lock, and then remove refuses (0).
      const job = await queue.getJob(jobId);
      if (!job || !['waiting', 'prioritized', 'delayed', 'paused'].includes(await job.getState())) return false;
      if ((await queue.remove(jobId)) !== 1) return false;
      // A group's head left the wait list: its next job takes the turn.
      const next = fair && (await fair.left(redis, jobId));
      if (next) await addToWaitList(queue, next);
      return true;
    },

    async listFailed(limit) {
      const queue = await readyQueue();
      const jobs = await queue.getFailed(0, Math.max(0, limit - 1));
      return jobs.map((job) => ({
        jobId: String(job.id),
        error: job.failedReason ?? 'unknown',
        attemptsMade: job.attemptsMade,
        failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
      }));
    },

    async retryFailed(jobId) {
      const queue = await readyQueue();
      const job = await queue.getJob(jobId);
      if (!job || !(await job.isFailed())) return false;
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return true;
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...consumers].map((c) => c.close()));
      if (producer) {
        const { queue, redis } = producer;
        await queue.close().catch((e: unknown) => onError(toError(e)));
        await closeConnection(redis);
      }
    },
  };
}
