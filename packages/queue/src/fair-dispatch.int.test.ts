/**
 * The fair layer's safety net on Redis: a step that never ran (a worker killed between taking a
 * group's head and releasing the next, a gateway killed between releasing a head and adding it
 * to BullMQ) holds up its group only until the next sweep.
 */
import { Worker } from 'bullmq';
import Redis from 'ioredis';
import { TEST_REDIS_URL } from '@promptpix/testing';
import type { GenerationQueue } from '@promptpix/core';
import { createBullGenerationQueue, type BullGenerationQueueOptions } from './bullmq-queue';
import { createFairDispatch } from './fair-dispatch';
import { useTestRedis, waitFor } from './testing';

const fixture = useTestRedis();
const { prefix, queues } = fixture;
let queueNumber = 0;

const open = (options: Partial<BullGenerationQueueOptions> = {}) => {
  const queueName = `sweep${++queueNumber}`;
  const queue = createBullGenerationQueue({ redisUrl: TEST_REDIS_URL, prefix, queueName, fairSweepIntervalMs: 200, onError: () => undefined, ...options });
  queues.push(queue);
  return { queue, queueName };
};

const collect = (queue: GenerationQueue) => {
  const ran: string[] = [];
  queue.consume(async (payload) => void ran.push(payload.jobId), { concurrency: 1, onFinalFailure: async () => undefined });
  return ran;
};

it("releases a group's next job when the worker that took its head died before releasing it", async () => {
  const { queue, queueName } = open();
  await queue.enqueue({ v: 1, jobId: 'h1' }, { group: 'g' });
  await queue.enqueue({ v: 1, jobId: 'h2' }, { group: 'g' });
  // A bare BullMQ worker takes the head and finishes it without the fair layer's release step,
  // as a worker killed between the two would.
  const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  const taken: string[] = [];
  const bare = new Worker(queueName, async (job) => void taken.push(String(job.id)), { connection, prefix });
  try {
    await waitFor(() => taken.length === 1, 'the bare worker to take the head');
  } finally {
    await bare.close();
    await connection.quit();
  }
  expect(taken).toEqual(['h1']);
  expect((await queue.depth()).waiting).toBe(1);

  const ran = collect(queue);
  await waitFor(() => ran.length === 1, 'the sweep to release the parked job');
  expect(ran).toEqual(['h2']);
});

it('adds a head again when the gateway that released it died before adding it to BullMQ', async () => {
  const { queue, queueName } = open();
  // The release step alone, as a gateway killed right after it leaves things.
  const fair = createFairDispatch({ prefix, queueName });
  expect(await fair.enqueue(fixture.redis, 'lost-head', 'g', JSON.stringify({ v: 1, jobId: 'lost-head' }))).toBe('release');
  await queue.enqueue({ v: 1, jobId: 'behind' }, { group: 'g' });

  const ran = collect(queue);
  await waitFor(() => ran.length === 2, 'the sweep to add the head, then its group to go on');
  expect(ran).toEqual(['lost-head', 'behind']);
});

it('passes the turn on when a released head was given up (its add failed and the caller said so)', async () => {
  const { queue, queueName } = open({ fairSweepIntervalMs: 60_000 });
  const fair = createFairDispatch({ prefix, queueName });
  expect(await fair.enqueue(fixture.redis, 'failed-add', 'g', JSON.stringify({ v: 1, jobId: 'failed-add' }))).toBe('release');
  await queue.enqueue({ v: 1, jobId: 'next-in-group' }, { group: 'g' });
  // What the adapter's enqueue does when BullMQ refuses the add.
  expect(await fair.left(fixture.redis, 'failed-add')).toEqual({ jobId: 'next-in-group', payload: JSON.stringify({ v: 1, jobId: 'next-in-group' }) });
  expect(await fair.sweep(fixture.redis, 0)).toEqual([{ jobId: 'next-in-group', payload: JSON.stringify({ v: 1, jobId: 'next-in-group' }) }]);
});
