/**
 * A worker closing with jobs still running: within its grace period they finish as usual; past it
 * their handlers are told to stop (`handBack`), and the jobs go back to the waiting list with their
 * attempts untouched, for another consumer to take at once (not after a lock expiry).
 */
import { TEST_REDIS_URL } from '@promptpix/testing';
import { JobHandedBackError, type GenerationJobPayload, type JobAttempt } from '@promptpix/core';
import { createBullGenerationQueue } from './bullmq-queue';
import { deferred, useTestRedis, waitFor } from './testing';

jest.setTimeout(30_000);

const fixture = useTestRedis();
const { prefix, queues } = fixture;

const open = (queueName: string) => {
  // A long lock: a job that came back through a lock expiry would take far longer than this test waits.
  const queue = createBullGenerationQueue({
    redisUrl: TEST_REDIS_URL,
    prefix,
    queueName,
    attempts: 3,
    backoffMs: 20,
    lockDurationMs: 60_000,
    onError: () => undefined,
  });
  queues.push(queue);
  return queue;
};

/** Resolves when `signal` aborts, then throws as a handler interrupted by it does. */
const stopOn = (signal: AbortSignal | undefined) =>
  new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new JobHandedBackError()), { once: true }));

describe('BullMQ consumer: shutdown grace period', () => {
  it('past the grace period, hands a running job back: another consumer runs it as attempt 1; no failure is reported', async () => {
    const queue = open('hand-back');
    const job: GenerationJobPayload = { v: 1, jobId: 'hand-back-1' };
    const started = deferred<JobAttempt>();
    const handedBack: string[] = [];
    const finalFailures: string[] = [];
    const first = queue.consume(
      async (_payload, attempt) => {
        started.resolve(attempt);
        await stopOn(attempt.handBack);
      },
      { concurrency: 1, shutdownGraceMs: 50, onFinalFailure: async (p) => void finalFailures.push(p.jobId), onHandedBack: (p) => handedBack.push(p.jobId) },
    );
    await queue.enqueue(job);
    expect((await started.promise).attempt).toBe(1);
    await first.close();
    expect(handedBack).toEqual([job.jobId]);
    expect(await queue.depth()).toMatchObject({ waiting: 1, active: 0, failed: 0 });

    const attempts: JobAttempt[] = [];
    const second = queue.consume(async (_payload, attempt) => void attempts.push(attempt), {
      concurrency: 1,
      onFinalFailure: async (p) => void finalFailures.push(p.jobId),
    });
    await waitFor(() => attempts.length === 1, 'the second consumer to run the job');
    expect(attempts[0]).toMatchObject({ attempt: 1, maxAttempts: 3 });
    await waitFor(async () => (await queue.depth()).active === 0, 'the job to leave active');
    await second.close();
    expect(finalFailures).toEqual([]);
  });

  it('within the grace period, a running job finishes and is not handed back', async () => {
    const queue = open('grace');
    const release = deferred();
    const started = deferred();
    const handedBack: string[] = [];
    let finished = 0;
    const consumer = queue.consume(
      async (_payload, attempt) => {
        started.resolve();
        await Promise.race([release.promise, stopOn(attempt.handBack)]);
        finished++;
      },
      { concurrency: 1, shutdownGraceMs: 10_000, onFinalFailure: async () => undefined, onHandedBack: (p) => handedBack.push(p.jobId) },
    );
    await queue.enqueue({ v: 1, jobId: 'grace-1' });
    await started.promise;
    const closed = consumer.close();
    release.resolve();
    await closed;
    expect(finished).toBe(1);
    expect(handedBack).toEqual([]);
    expect(await queue.depth()).toMatchObject({ waiting: 0, active: 0, failed: 0 });
  });
});
