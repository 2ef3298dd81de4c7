import Redis from 'ioredis';
import { TEST_REDIS_URL, testRedisPrefix } from '@promptpix/testing';
import { bullQueueKeys, createBullGenerationQueue } from './bullmq-queue';
import { createInProcessGenerationQueue } from './in-process-queue';
import { describeQueueContract } from './testing';
import { deleteKeysWithPrefix, waitFor } from './testing';

const prefix = testRedisPrefix().replace(/:$/, '');
let queueNumber = 0;
const quiet = () => undefined;

afterAll(async () => {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  await deleteKeysWithPrefix(redis, `${prefix}:`);
  await redis.quit();
});

describeQueueContract('in-process', (options) => createInProcessGenerationQueue({ ...options, onError: quiet }));

describeQueueContract('BullMQ', (options) =>
  createBullGenerationQueue({ redisUrl: TEST_REDIS_URL, prefix, queueName: `q${++queueNumber}`, ...options, onError: quiet }),
);

describe('BullMQ queue specifics', () => {
  it('keeps waiting jobs in the lists an autoscaler reads: each group head on the wait list, the rest parked', async () => {
    const queueName = `keys${++queueNumber}`;
    const queue = createBullGenerationQueue({ redisUrl: TEST_REDIS_URL, prefix, queueName, onError: quiet });
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      await queue.enqueue({ v: 1, jobId: 'a1' }, { group: 'a' });
      await queue.enqueue({ v: 1, jobId: 'a2' }, { group: 'a' });
      await queue.enqueue({ v: 1, jobId: 'a3' }, { group: 'a' });
      await queue.enqueue({ v: 1, jobId: 'b1' }, { group: 'b' });
      const keys = bullQueueKeys(prefix, queueName);
      expect(keys.wait).toBe(`${prefix}:${queueName}:wait`);
      expect(keys.parked).toBe(`${prefix}:${queueName}:fair:parked`);
      expect(await redis.lrange(keys.wait, 0, -1)).toEqual(['b1', 'a1']);
      expect(await redis.llen(keys.parked)).toBe(2);
      expect((await queue.depth()).waiting).toBe(4);
    } finally {
      await queue.close();
      await redis.quit();
    }
  });

  it('fails enqueue fast while Redis is unreachable', async () => {
    // Nothing listens on port 1: the producer never becomes ready.
    const queue = createBullGenerationQueue({ redisUrl: 'redis://127.0.0.1:1', prefix, producerReadyTimeoutMs: 300, onError: quiet });
    const started = Date.now();
    try {
      await expect(queue.enqueue({ v: 1, jobId: 'x' })).rejects.toThrow(/not reachable/);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await queue.close();
    }
  });

  it('reports a job whose payload is not understood as a final failure without running it', async () => {
    const queueName = `bad${++queueNumber}`;
    const queue = createBullGenerationQueue({ redisUrl: TEST_REDIS_URL, prefix, queueName, onError: quiet });
    try {
      await queue.enqueue({ v: 2, jobId: 'future' } as never);
      const handler = jest.fn(async () => undefined);
      const failures: Error[] = [];
      queue.consume(handler, { concurrency: 1, onFinalFailure: async (_p, e) => void failures.push(e) });
      await waitFor(() => failures.length === 1, 'the final failure');
      expect(handler).not.toHaveBeenCalled();
      expect(failures[0].name).toBe('PermanentJobError');
    } finally {
      await queue.close();
    }
  });
});
