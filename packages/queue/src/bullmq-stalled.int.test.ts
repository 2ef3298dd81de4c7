/**
 * A worker dies mid-job (SIGKILL, no cleanup): BullMQ's stalled-job check must hand the job to
 * another worker once the dead one's lock expires, and the job must complete exactly once. A job
 * that keeps killing its workers ends as a final failure, reported once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { TEST_REDIS_URL, testRedisPrefix } from '@promptpix/testing';
import type { GenerationJobPayload, GenerationQueue } from '@promptpix/core';
import { createBullGenerationQueue, type BullGenerationQueueOptions } from './bullmq-queue';
import { deleteKeysWithPrefix, sleep, waitFor } from './testing';

jest.setTimeout(30_000);

const prefix = testRedisPrefix().replace(/:$/, '');
const baseOptions: BullGenerationQueueOptions = {
  redisUrl: TEST_REDIS_URL,
  prefix,
  attempts: 3,
  backoffMs: 20,
  stalledIntervalMs: 500,
  lockDurationMs: 1000,
};
const repoRoot = resolve(__dirname, '../../..');
const fixture = join(__dirname, 'test-fixtures', 'blocking-consumer.ts');

const children = new Set<ChildProcess>();
const queues: GenerationQueue[] = [];
let redis: Redis;

beforeAll(() => {
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(queues.map((q) => q.close()));
  await deleteKeysWithPrefix(redis, `${prefix}:`);
  await redis.quit();
});

const open = (options: BullGenerationQueueOptions) => {
  const queue = createBullGenerationQueue({ ...options, onError: () => undefined });
  queues.push(queue);
  return queue;
};

/** Starts a consumer in a child process, waits until it has taken `job`, then SIGKILLs it. */
async function killConsumerMidJob(options: BullGenerationQueueOptions, job: GenerationJobPayload): Promise<void> {
  let stdout = '';
  let stderr = '';
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, JSON.stringify(options)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await waitFor(() => stdout.includes(`started ${job.jobId}`), `the child consumer to take the job (stderr: ${stderr})`, 15_000);
  child.kill('SIGKILL');
  await exited;
  expect(stdout).not.toContain('final-failure');
}

it('recovers a job from a killed worker and completes it exactly once', async () => {
  const options = { ...baseOptions, queueName: 'stalled' };
  const producer = open(options);
  const job = { v: 1 as const, jobId: 'stalled-job-1' };
  await producer.enqueue(job);

  await killConsumerMidJob(options, job);
  expect(await producer.depth()).toMatchObject({ waiting: 0, active: 1 });

  const runs: number[] = [];
  const failures: Error[] = [];
  open(options).consume(async (_payload, attempt) => void runs.push(attempt.attempt), {
    concurrency: 1,
    onFinalFailure: async (_p, e) => void failures.push(e),
  });
  await waitFor(() => runs.length === 1, 'a second consumer to run the stalled job', 15_000);
  await waitFor(async () => (await producer.depth()).active === 0, 'the job to leave active', 5_000);
  await sleep(1_500); // several more stalled checks: nothing may run it again
  expect(runs).toEqual([1]);
  expect(failures).toHaveLength(0);
  expect(await producer.depth()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, groupsWaiting: 0, largestGroupBacklog: 0 });
  expect(await redis.zscore(`${prefix}:stalled:completed`, job.jobId)).not.toBeNull();
});

it('fails a job that stalls more than once and reports it once, without running it again', async () => {
  const options = { ...baseOptions, queueName: 'stalled-twice' };
  const producer = open(options);
  const job = { v: 1 as const, jobId: 'stalled-job-2' };
  await producer.enqueue(job);

  // The first stall is forgiven (maxStalledCount 1): the second child gets the job back.
  await killConsumerMidJob(options, job);
  await killConsumerMidJob(options, job);

  const handler = jest.fn(async () => undefined);
  const failures: Array<[GenerationJobPayload, Error]> = [];
  open(options).consume(handler, { concurrency: 1, onFinalFailure: async (p, e) => void failures.push([p, e]) });
  await waitFor(() => failures.length === 1, 'the final failure', 15_000);
  await sleep(1_000);
  expect(handler).not.toHaveBeenCalled();
  expect(failures).toHaveLength(1);
  expect(failures[0][0]).toEqual(job);
  expect(failures[0][1].message).toMatch(/stalled/);
  expect(await producer.depth()).toMatchObject({ active: 0, failed: 1 });
});

it("recovers a killed worker's job without losing its account's turn: every job of both accounts runs once, each account's in order", async () => {
  const options = { ...baseOptions, queueName: 'stalled-groups' };
  const producer = open(options);
  const a = ['a1', 'a2', 'a3'].map((id) => ({ v: 1 as const, jobId: `stalled-${id}` }));
  const b = { v: 1 as const, jobId: 'stalled-b1' };
  for (const job of a) await producer.enqueue(job, { group: 'account-a' });
  await producer.enqueue(b, { group: 'account-b' });

  // The child takes account A's head and dies holding it.
  await killConsumerMidJob(options, a[0]);

  const runs: string[] = [];
  open(options).consume(async (payload) => void runs.push(payload.jobId), { concurrency: 1, onFinalFailure: async () => undefined });
  await waitFor(() => runs.length === 4, 'every job to run', 15_000);
  await sleep(1_500); // more stalled checks and sweeps: nothing runs twice
  expect(runs.sort()).toEqual([...a.map((job) => job.jobId), b.jobId].sort());
  // A's jobs in order (the recovered head first, as soon as its lock lapsed).
  expect(runs.filter((id) => id.startsWith('stalled-a'))).toEqual(a.map((job) => job.jobId));
  expect(await producer.depth()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, groupsWaiting: 0, largestGroupBacklog: 0 });
});
