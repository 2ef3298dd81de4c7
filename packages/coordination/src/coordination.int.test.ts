import Redis from 'ioredis';
import type { ActiveJobs, BudgetCounter, IdempotencyStore, RateLimiter, SingleFlight } from '@promptpix/core';
import { createMemoryActiveJobs, createRedisActiveJobs } from './active-jobs';
import { createMemoryBudgetCounter, createRedisBudgetCounter } from './budget-counter';
import { createMemoryIdempotencyStore, createRedisIdempotencyStore } from './idempotency-store';
import { TEST_REDIS_URL, testRedisPrefix } from '@promptpix/testing';
import { createMemoryRateLimiter } from './memory-rate-limiter';
import { createRedisRateLimiter } from './redis-rate-limiter';
import { createMemorySingleFlight, createRedisSingleFlight } from './single-flight';

const redisClients: Redis[] = [];
const newRedis = () => {
  const r = new Redis(TEST_REDIS_URL);
  redisClients.push(r);
  return r;
};
afterAll(() => {
  for (const r of redisClients) r.disconnect();
});

const limiters: Array<[string, () => RateLimiter]> = [
  ['memory', () => createMemoryRateLimiter()],
  ['redis', () => createRedisRateLimiter({ redis: newRedis(), prefix: testRedisPrefix() })],
];

describe.each(limiters)('rate limiter contract (%s)', (_name, make) => {
  const MINUTE = 60_000;

  it('allows up to the limit, then refuses with the time until the oldest hit leaves the window', async () => {
    const limiter = make();
    const t0 = 1_000_000;
    for (let i = 0; i < 5; i++) {
      const d = await limiter.hit('k', 5, MINUTE, t0 + i * 1000);
      expect(d).toEqual({ allowed: true, limit: 5, remaining: 4 - i, retryAfterMs: 0 });
    }
    const refused = await limiter.hit('k', 5, MINUTE, t0 + 10_000);
    expect(refused).toEqual({ allowed: false, limit: 5, remaining: 0, retryAfterMs: 50_000 });
  });

  it('slides: a steady pace recovers one slot at a time, a burst waits for the whole window', async () => {
    const limiter = make();
    const t0 = 5_000_000;
    // Steady: one request every 15 s against a limit of 4 never gets refused.
    for (let i = 0; i < 12; i++) expect((await limiter.hit('steady', 4, MINUTE, t0 + i * 15_000)).allowed).toBe(true);
    // Burst: four at once, then everything is refused until the minute is over.
    for (let i = 0; i < 4; i++) await limiter.hit('burst', 4, MINUTE, t0);
    expect((await limiter.hit('burst', 4, MINUTE, t0 + 59_000)).allowed).toBe(false);
    expect((await limiter.hit('burst', 4, MINUTE, t0 + 60_001)).allowed).toBe(true);
  });

  it('keeps buckets apart', async () => {
    const limiter = make();
    await limiter.hit('a', 1, MINUTE, 1);
    expect((await limiter.hit('a', 1, MINUTE, 2)).allowed).toBe(false);
    expect((await limiter.hit('b', 1, MINUTE, 2)).allowed).toBe(true);
  });

  it('refused requests do not take a slot', async () => {
    const limiter = make();
    await limiter.hit('r', 1, MINUTE, 0);
    for (let i = 1; i < 10; i++) await limiter.hit('r', 1, MINUTE, i);
    expect((await limiter.hit('r', 1, MINUTE, MINUTE + 1)).allowed).toBe(true);
  });
});

it('two Redis clients (two gateway processes) share one window', async () => {
  const prefix = testRedisPrefix();
  const a = createRedisRateLimiter({ redis: newRedis(), prefix });
  const b = createRedisRateLimiter({ redis: newRedis(), prefix });
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).hit('shared', 6, 60_000, 42 + i)));
  expect(results.filter((r) => r.allowed)).toHaveLength(6);
});

const flights: Array<[string, () => SingleFlight]> = [
  ['memory', () => createMemorySingleFlight()],
  ['redis', () => createRedisSingleFlight({ redis: newRedis(), prefix: testRedisPrefix() })],
];

describe.each(flights)('single flight contract (%s)', (_name, make) => {
  it('the first claim wins; later claims learn the holder; release frees it only for its owner', async () => {
    const flight = make();
    expect(await flight.claim('key', 'job-1', 60)).toBeNull();
    expect(await flight.claim('key', 'job-2', 60)).toBe('job-1');
    await flight.release('key', 'job-2');
    expect(await flight.claim('key', 'job-3', 60)).toBe('job-1');
    await flight.release('key', 'job-1');
    expect(await flight.claim('key', 'job-4', 60)).toBeNull();
  });

  it('exactly one of many concurrent claims wins', async () => {
    const flight = make();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => flight.claim('hot', `job-${i}`, 60)));
    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(new Set(results.filter((r) => r !== null)).size).toBe(1);
  });

  it('a claim expires after its ttl', async () => {
    const flight = make();
    await flight.claim('ttl', 'job-1', 1);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await flight.claim('ttl', 'job-2', 1)).toBeNull();
  });
});

const idempotencyStores: Array<[string, () => IdempotencyStore]> = [
  ['memory', () => createMemoryIdempotencyStore()],
  ['redis', () => createRedisIdempotencyStore({ redis: newRedis(), prefix: testRedisPrefix() })],
];

describe.each(idempotencyStores)('idempotency store contract (%s)', (_name, make) => {
  const response = { status: 202, headers: { 'X-Quota-Used': '3' }, body: { jobId: 'j1', status: 'queued' } };

  it('claims a new key, then reports it in progress, replays it once finished, and refuses another body', async () => {
    const store = make();
    expect(await store.begin('acct:k1', 'fp-a', 60)).toEqual({ kind: 'started' });
    expect(await store.begin('acct:k1', 'fp-a', 60)).toEqual({ kind: 'in_progress' });
    expect(await store.begin('acct:k1', 'fp-b', 60)).toEqual({ kind: 'mismatch' });
    await store.finish('acct:k1', 'fp-a', response, 3600);
    expect(await store.begin('acct:k1', 'fp-a', 60)).toEqual({ kind: 'replay', response });
    expect(await store.begin('acct:k1', 'fp-b', 60)).toEqual({ kind: 'mismatch' });
    expect(await store.begin('acct:k2', 'fp-b', 60)).toEqual({ kind: 'started' });
  });

  it("abandon frees a claim so a retry runs again, but never drops a finished response or another body's claim", async () => {
    const store = make();
    await store.begin('acct:a', 'fp-a', 60);
    await store.abandon('acct:a', 'fp-other');
    expect(await store.begin('acct:a', 'fp-a', 60)).toEqual({ kind: 'in_progress' });
    await store.abandon('acct:a', 'fp-a');
    expect(await store.begin('acct:a', 'fp-a', 60)).toEqual({ kind: 'started' });
    await store.finish('acct:a', 'fp-a', response, 3600);
    await store.abandon('acct:a', 'fp-a');
    expect(await store.begin('acct:a', 'fp-a', 60)).toEqual({ kind: 'replay', response });
  });

  it('a claim left by a crashed request expires after its pending time', async () => {
    const store = make();
    await store.begin('acct:crash', 'fp-a', 1);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.begin('acct:crash', 'fp-a', 60)).toEqual({ kind: 'started' });
  });
});

const activeJobStores: Array<[string, () => ActiveJobs]> = [
  ['memory', () => createMemoryActiveJobs()],
  ['redis', () => createRedisActiveJobs({ redis: newRedis(), prefix: testRedisPrefix() })],
];

describe.each(activeJobStores)('active jobs contract (%s)', (_name, make) => {
  it('admits up to the limit per bucket, and a released job frees its slot', async () => {
    const active = make();
    const t = 1_000_000;
    expect(await active.admit('key-a', 'j1', 2, 3600, t)).toEqual({ admitted: true, active: 1 });
    expect(await active.admit('key-a', 'j2', 2, 3600, t)).toEqual({ admitted: true, active: 2 });
    expect(await active.admit('key-a', 'j3', 2, 3600, t)).toEqual({ admitted: false, active: 2 });
    expect(await active.admit('key-b', 'j3', 2, 3600, t)).toEqual({ admitted: true, active: 1 });
    await active.release('key-a', 'j1');
    expect(await active.admit('key-a', 'j3', 2, 3600, t)).toEqual({ admitted: true, active: 2 });
    await active.release('key-a', 'no-such-job');
    expect((await active.admit('key-a', 'j4', 2, 3600, t)).admitted).toBe(false);
  });

  it('an entry never released stops counting after its time to live', async () => {
    const active = make();
    const t = 2_000_000;
    await active.admit('key-lost', 'lost', 1, 60, t);
    expect((await active.admit('key-lost', 'next', 1, 60, t + 59_000)).admitted).toBe(false);
    expect((await active.admit('key-lost', 'next', 1, 60, t + 60_001)).admitted).toBe(true);
  });
});

const budgetCounters: Array<[string, () => BudgetCounter]> = [
  ['memory', () => createMemoryBudgetCounter()],
  ['redis', () => createRedisBudgetCounter({ redis: newRedis(), prefix: testRedisPrefix() })],
];

describe.each(budgetCounters)('budget counter contract (%s)', (_name, make) => {
  const HOUR = 3_600_000;

  it('takes from every counter until one is full, then takes from none and names the full one', async () => {
    const counter = make();
    const windows = [
      { counter: 'client', limit: 2, ttlMs: HOUR },
      { counter: 'key', limit: 3, ttlMs: HOUR },
    ];
    expect(await counter.take(windows)).toEqual({ taken: true });
    expect(await counter.take(windows)).toEqual({ taken: true });
    expect(await counter.take(windows)).toEqual({ taken: false, full: 0 });
    expect(await counter.read(['client', 'key', 'unknown'])).toEqual([2, 2, 0]);
    // Another client of the same key fills the key's counter, then the key is the full one.
    const other = [{ counter: 'client-2', limit: 2, ttlMs: HOUR }, windows[1]];
    expect(await counter.take(other)).toEqual({ taken: true });
    expect(await counter.take(other)).toEqual({ taken: false, full: 1 });
    expect(await counter.read(['client-2', 'key'])).toEqual([1, 3]);
  });

  it('gives back a unit, never below zero', async () => {
    const counter = make();
    const windows = [{ counter: 'g', limit: 1, ttlMs: HOUR }];
    await counter.take(windows);
    await counter.giveBack(['g', 'never-taken']);
    await counter.giveBack(['g']);
    expect(await counter.read(['g', 'never-taken'])).toEqual([0, 0]);
    expect(await counter.take(windows)).toEqual({ taken: true });
  });

  it('never counts past a limit under concurrent takes', async () => {
    const counter = make();
    const windows = [{ counter: 'race', limit: 7, ttlMs: HOUR }];
    const results = await Promise.all(Array.from({ length: 40 }, () => counter.take(windows)));
    expect(results.filter((r) => r.taken)).toHaveLength(7);
    expect(await counter.read(['race'])).toEqual([7]);
  });
});
