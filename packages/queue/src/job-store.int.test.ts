import Redis from 'ioredis';
import type { JobPatch, JobRecord } from '@promptpix/core';
import { startFaultProxy, TEST_REDIS_URL, testRedisPrefix, until } from '@promptpix/testing';
import { describeJobStoreContract, sampleRecord } from './testing';
import { createMemoryJobStore } from './memory-job-store';
import { createRedisJobStore } from './redis-job-store';
import { deleteKeysWithPrefix, sleep } from './testing';

const prefix = testRedisPrefix();
let redis: Redis;

beforeAll(() => {
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

describeJobStoreContract('memory', async () => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const store = createMemoryJobStore({ now: () => now });
  return {
    store,
    elapse: async (ms) => {
      now += ms;
    },
    stop: () => store.close(),
  };
});

describeJobStoreContract('redis', async () => {
  const store = createRedisJobStore({ redis, prefix });
  return { store, elapse: sleep, stop: () => store.close() };
});

describe('redis job store specifics', () => {
  it('keeps one hash per job under the prefix with a TTL that updates do not reset', async () => {
    const store = createRedisJobStore({ redis, prefix });
    const record = sampleRecord();
    await store.create(record, 30);
    const key = `${prefix}job:${record.jobId}`;
    expect(await redis.type(key)).toBe('hash');
    expect(await redis.hget(key, 'request')).toBe(JSON.stringify(record.request));
    expect(await redis.hget(key, 'quotaCharged')).toBe('false');
    const before = await redis.pttl(key);
    expect(before).toBeGreaterThan(29_000);
    await redis.pexpire(key, 10_000);
    await store.update(record.jobId, { status: 'processing' });
    const after = await redis.pttl(key);
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThanOrEqual(10_000);
  });

  describe('an update whose reply is lost when the connection drops, resent by the client on reconnecting', () => {
    // The worker's connection. ioredis resends a command that was in flight when the connection
    // dropped once it reconnects (unless two reconnections fail first): Redis then runs it twice.
    const cases: Array<[string, JobPatch | null, boolean, JobRecord['status']]> = [
      ['reports the write it made as applied (the resend finds its own write)', null, true, 'processing'],
      ['reports not applied when another write changed the record in between', { status: 'failed', error: 'Cancelled' }, false, 'failed'],
    ];
    it.each(cases)('%s', async (_name, meanwhile, applied, finalStatus) => {
      const url = new URL(TEST_REDIS_URL);
      const proxy = await startFaultProxy({ host: url.hostname, port: Number(url.port || 6379) });
      const viaProxy = new Redis(`redis://${proxy.address}`, { maxRetriesPerRequest: 1, enableOfflineQueue: true });
      try {
        const store = createRedisJobStore({ redis: viaProxy, prefix });
        const direct = createRedisJobStore({ redis, prefix });
        const record = sampleRecord();
        await direct.create(record, 60);
        expect(await viaProxy.ping()).toBe('PONG');
        proxy.set({ kind: 'mute' });
        const update = store.update(record.jobId, { status: 'processing' }, { ifStatus: ['queued'] });
        await until(
          () => direct.get(record.jobId),
          (r) => r?.status === 'processing',
          'the update to reach Redis',
        );
        if (meanwhile) await direct.update(record.jobId, meanwhile);
        // The connection is reset; the next one goes through.
        proxy.cut();
        proxy.pass();
        expect(await update).toBe(applied);
        expect((await direct.get(record.jobId))?.status).toBe(finalStatus);
      } finally {
        viaProxy.disconnect();
        await proxy.stop();
      }
    });
  });

  it('does not close the caller connection', async () => {
    const store = createRedisJobStore({ redis, prefix });
    await store.close();
    expect(await redis.ping()).toBe('PONG');
  });
});

describe('memory job store specifics', () => {
  it('sweeps on an interval timer and stops sweeping on close', async () => {
    let t = 0;
    const now = jest.fn(() => t);
    const store = createMemoryJobStore({ now, sweepIntervalMs: 10 });
    await store.create(sampleRecord(), 1);
    t = 5_000;
    now.mockClear();
    await sleep(50);
    // Nobody read the store: only the sweep asks the clock.
    expect(now.mock.calls.length).toBeGreaterThan(0);
    await store.close();
    now.mockClear();
    await sleep(50);
    expect(now).not.toHaveBeenCalled();
  });
});
