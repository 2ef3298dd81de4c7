/**
 * Embedded queue: jobs live in this process's memory, with the same semantics as the BullMQ
 * adapter (dedupe by jobId while pending or running, bounded concurrency, exponential backoff,
 * PermanentJobError skips retries, one onFinalFailure per failed job, fair dequeuing between
 * groups). Jobs do not survive a restart; the job store record (and its expiry) is what the user
 * sees either way.
 */
import {
  isJobDeferred,
  SHARED_GROUP,
  type ConsumerOptions,
  type GenerationJobHandler,
  type GenerationJobPayload,
  type GenerationQueue,
  type QueueConsumer,
  type QueueDepth,
  type FailedJob,
} from '@promptpix/core';
import { isPermanentJobError, toError } from './errors';
import { createFairWaitingLine, type PendingJob } from './fair-waiting-line';

export interface InProcessQueueOptions {
  /** Tries per job, the first included (default 3). */
  attempts?: number;
  /** Delay before retry n is backoffMs * 2^(n-1) (default 1000). */
  backoffMs?: number;
  /** Called when onFinalFailure itself throws (default: console.error). */
  onError?: (error: Error) => void;
}

interface Consumer {
  handler: GenerationJobHandler;
  options: ConsumerOptions;
  running: Set<Promise<void>>;
  closing: boolean;
}

export function createInProcessGenerationQueue(options: InProcessQueueOptions = {}): GenerationQueue {
  const attempts = Math.max(1, options.attempts ?? 3);
  const backoffMs = Math.max(0, options.backoffMs ?? 1000);
  const onError = options.onError ?? ((error: Error) => console.error('in-process queue:', error));

  /** Every job not yet finished, by id: the dedupe set. */
  const known = new Map<string, PendingJob>();
  const waiting = createFairWaitingLine();
  const delayed = new Map<string, NodeJS.Timeout>();
  const consumers = new Set<Consumer>();
  let active = 0;
  let failed = 0;
  let closed = false;
  /** The last failed jobs, newest last, bounded. */
  const failedJobs = new Map<string, FailedJob & { payload: GenerationJobPayload; group: string }>();
  const FAILED_KEPT = 1000;

  const pump = () => {
    for (const consumer of consumers) {
      while (!consumer.closing && !closed && consumer.running.size < consumer.options.concurrency) {
        // Jobs of a group whose turn is taken wait, so a line with jobs may have none to take.
        const job = waiting.take(consumer.options.holdTurnUntilStarted ?? false);
        if (!job) break;
        const run = execute(consumer, job).finally(() => {
          consumer.running.delete(run);
          pump();
        });
        consumer.running.add(run);
      }
    }
  };

  const execute = async (consumer: Consumer, job: PendingJob): Promise<void> => {
    active++;
    const attempt = job.attemptsMade + 1;
    // The job holds its slot: its group's next job may be taken by another slot.
    const started = () => {
      waiting.started(job);
      queueMicrotask(pump);
    };
    try {
      await consumer.handler(structuredClone(job.payload), { attempt, maxAttempts: attempts, started });
      waiting.started(job);
      known.delete(job.payload.jobId);
    } catch (thrown) {
      if (isJobDeferred(thrown)) {
        // Waiting again after the delay, its attempts untouched, still holding its group's turn;
        // the slot is free meanwhile.
        if (closed) return;
        const timer = setTimeout(() => {
          delayed.delete(job.payload.jobId);
          waiting.returnDeferred(job);
          pump();
        }, thrown.delayMs);
        delayed.set(job.payload.jobId, timer);
        return;
      }
      waiting.started(job);
      const error = toError(thrown);
      job.attemptsMade = attempt;
      if (isPermanentJobError(error) || attempt >= attempts) {
        known.delete(job.payload.jobId);
        failed++;
        failedJobs.delete(job.payload.jobId);
        failedJobs.set(job.payload.jobId, {
          jobId: job.payload.jobId,
          error: error.message,
          attemptsMade: attempt,
          failedAt: new Date().toISOString(),
          payload: structuredClone(job.payload),
          group: job.group,
        });
        if (failedJobs.size > FAILED_KEPT) failedJobs.delete(failedJobs.keys().next().value as string);
        try {
          await consumer.options.onFinalFailure(structuredClone(job.payload), error);
        } catch (e) {
          onError(toError(e));
        }
      } else if (!closed) {
        const timer = setTimeout(
          () => {
            delayed.delete(job.payload.jobId);
            waiting.addRetry(job);
            pump();
          },
          backoffMs * 2 ** (attempt - 1),
        );
        delayed.set(job.payload.jobId, timer);
      }
    } finally {
      active--;
    }
  };

  return {
    async enqueue(payload, options = {}) {
      if (closed) throw new Error('Queue is closed');
      if (known.has(payload.jobId)) return;
      const job: PendingJob = { payload: structuredClone(payload), group: options.group ?? SHARED_GROUP, attemptsMade: 0 };
      known.set(payload.jobId, job);
      waiting.add(job);
      // Start on a later tick, as a real queue would: enqueue never runs the handler inline.
      queueMicrotask(pump);
    },

    consume(handler, consumerOptions): QueueConsumer {
      if (closed) throw new Error('Queue is closed');
      if (!(consumerOptions.concurrency >= 1)) throw new Error('concurrency must be at least 1');
      const consumer: Consumer = { handler, options: consumerOptions, running: new Set(), closing: false };
      consumers.add(consumer);
      queueMicrotask(pump);
      let closing: Promise<void> | null = null;
      return {
        close() {
          closing ??= (async () => {
            consumer.closing = true;
            while (consumer.running.size > 0) await Promise.allSettled([...consumer.running]);
            consumers.delete(consumer);
          })();
          return closing;
        },
      };
    },

    async depth(): Promise<QueueDepth> {
      return { waiting: waiting.size, active, delayed: delayed.size, failed, ...waiting.groups() };
    },

    async position(jobId) {
      return waiting.position(jobId);
    },

    async remove(jobId) {
      const timer = delayed.get(jobId);
      if (!waiting.remove(jobId) && !timer) return false;
      clearTimeout(timer);
      // A deferred job gives its group's turn back.
      const job = known.get(jobId);
      if (timer && job) waiting.started(job);
      delayed.delete(jobId);
      known.delete(jobId);
      return true;
    },

    async listFailed(limit) {
      return [...failedJobs.values()]
        .reverse()
        .slice(0, limit)
        .map(({ jobId, error, attemptsMade, failedAt }) => ({ jobId, error, attemptsMade, failedAt }));
    },

    async retryFailed(jobId) {
      const entry = failedJobs.get(jobId);
      if (!entry || closed) return false;
      failedJobs.delete(jobId);
      failed--;
      await this.enqueue(entry.payload, { group: entry.group });
      return true;
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const timer of delayed.values()) clearTimeout(timer);
      delayed.clear();
      for (const consumer of consumers) consumer.closing = true;
      await Promise.allSettled([...consumers].flatMap((c) => [...c.running]));
      consumers.clear();
    },
  };
}
