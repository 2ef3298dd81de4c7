/** Small async helpers shared by this package's tests. */
import Redis from 'ioredis';
import type { GenerationQueue } from '@promptpix/core';
import { TEST_REDIS_URL, testRedisPrefix } from '@promptpix/testing';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds; fails with `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Deletes every key under `prefix` (SCAN + DEL; never FLUSHDB: other test files share the server). */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

/**
 * A Redis client and a key prefix of this test file's own. Queues the tests push to `queues` are
 * closed after the file's tests, and every key under the prefix is deleted.
 */
export function useTestRedis() {
  const fixture = { prefix: testRedisPrefix().replace(/:$/, ''), queues: [] as GenerationQueue[], redis: undefined as unknown as Redis };
  beforeAll(() => {
    fixture.redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await Promise.all(fixture.queues.map((queue) => queue.close()));
    await deleteKeysWithPrefix(fixture.redis, `${fixture.prefix}:`);
    await fixture.redis.quit();
  });
  return fixture;
}
