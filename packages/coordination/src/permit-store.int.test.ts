import Redis from 'ioredis';
import { createBackendBulkhead, type PermitStore } from '@promptpix/core';
import { TEST_REDIS_URL, testRedisPrefix, until } from '@promptpix/testing';
import { createMemoryPermitStore, createRedisPermitStore } from './permit-store';

const redisClients: Redis[] = [];
const newRedis = () => {
  const r = new Redis(TEST_REDIS_URL);
  redisClients.push(r);
  return r;
};
afterAll(() => {
  for (const r of redisClients) r.disconnect();
});

/** Two handles on one store: two worker processes in production (two Redis clients), the one process embedded. */
const stores: Array<[string, () => [PermitStore, PermitStore]]> = [
  [
    'memory',
    () => {
      const store = createMemoryPermitStore();
      return [store, store];
    },
  ],
  [
    'redis',
    () => {
      const prefix = testRedisPrefix();
      return [createRedisPermitStore({ redis: newRedis(), prefix }), createRedisPermitStore({ redis: newRedis(), prefix })];
    },
  ],
];

describe.each(stores)('permit store contract (%s)', (_name, make) => {
  const LEASE = 1000;

  it('gives permits up to the limit, refuses one more, and a release frees one', async () => {
    const [a, b] = make();
    expect(await a.acquire('gpu', 'h1', 2, LEASE, 0)).toBe(true);
    expect(await b.acquire('gpu', 'h2', 2, LEASE, 0)).toBe(true);
    expect(await a.acquire('gpu', 'h3', 2, LEASE, 1)).toBe(false);
    expect(await a.held(['gpu', 'hosted'], 1)).toEqual([2, 0]);
    await b.release('gpu', 'h1');
    expect(await a.acquire('gpu', 'h3', 2, LEASE, 2)).toBe(true);
    expect(await b.acquire('hosted', 'h4', 1, LEASE, 2)).toBe(true);
    expect(await a.held(['gpu', 'hosted'], 3)).toEqual([2, 1]);
  });

  it('a permit nobody renews lapses after its lease (its worker died), and its place is free again', async () => {
    const [a, b] = make();
    expect(await a.acquire('gpu', 'dead-worker', 1, LEASE, 0)).toBe(true);
    expect(await b.acquire('gpu', 'live-worker', 1, LEASE, LEASE - 1)).toBe(false);
    expect(await b.acquire('gpu', 'live-worker', 1, LEASE, LEASE + 1)).toBe(true);
    expect(await a.held(['gpu'], LEASE + 2)).toEqual([1]);
  });

  it('renewing keeps a permit past its first lease; a lapsed one cannot be renewed and is not held', async () => {
    const [a, b] = make();
    expect(await a.acquire('gpu', 'long-call', 1, LEASE, 0)).toBe(true);
    expect(await a.renew('gpu', 'long-call', LEASE, 900)).toBe(true);
    expect(await b.acquire('gpu', 'other', 1, LEASE, 1500)).toBe(false);
    expect(await b.acquire('gpu', 'other', 1, LEASE, 1901)).toBe(true);
    expect(await a.renew('gpu', 'long-call', LEASE, 2000)).toBe(false);
    expect(await a.held(['gpu'], 2000)).toEqual([1]);
  });

  it('never gives more than the limit to concurrent callers', async () => {
    const [a, b] = make();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).acquire('gpu', `h${i}`, 3, LEASE, 0)));
    expect(results.filter(Boolean)).toHaveLength(3);
  });
});

describe.each(stores)('backend bulkhead over the %s permit store', (_name, make) => {
  const limits = (backend: string) => (backend === 'gpu' ? { maxInFlightPerWorker: 2, maxInFlight: 3 } : { maxInFlightPerWorker: 1, maxInFlight: null });
  const bulkheads: Array<{ close(): void }> = [];
  afterEach(() => {
    for (const b of bulkheads.splice(0)) b.close();
  });
  const bulkhead = (store: PermitStore, options: { leaseMs?: number; onStoreError?: (e: unknown) => void } = {}) => {
    const b = createBackendBulkhead({
      limits,
      store,
      now: Date.now,
      onStoreError:
        options.onStoreError ??
        ((e) => {
          throw e;
        }),
      leaseMs: options.leaseMs,
    });
    bulkheads.push(b);
    return b;
  };

  it('limits calls per worker and, across workers, overall; other backends keep theirs', async () => {
    const [storeA, storeB] = make();
    const workerA = bulkhead(storeA);
    const workerB = bulkhead(storeB);
    const a1 = await workerA.acquire('gpu');
    const a2 = await workerA.acquire('gpu');
    expect(a1 && a2).toBeTruthy();
    expect(await workerA.acquire('gpu')).toBeNull();
    expect(await workerB.acquire('gpu')).not.toBeNull();
    // Three in flight in all: the overall limit.
    expect(await workerB.acquire('gpu')).toBeNull();
    expect(await workerA.acquire('hosted')).not.toBeNull();
    expect(workerA.inFlight()).toEqual({ gpu: 2, hosted: 1 });
    a1!.release();
    a1!.release();
    expect(workerA.inFlight()).toEqual({ gpu: 1, hosted: 1 });
    await until(
      async () => workerB.acquire('gpu'),
      (p) => p !== null,
      'the released permit to be free across workers',
      5000,
    );
  });

  it("a forced permit (the breaker's trial) goes past both limits", async () => {
    const [store] = make();
    const worker = bulkhead(store);
    for (let i = 0; i < 2; i++) expect(await worker.acquire('gpu')).not.toBeNull();
    expect(await worker.acquire('gpu')).toBeNull();
    expect(await worker.acquire('gpu', { force: true })).not.toBeNull();
    expect(worker.inFlight()).toEqual({ gpu: 3 });
  });

  it('renews the leases of calls in flight, so a long call keeps its permit; a worker that dies gives its permits back after a lease', async () => {
    const [storeA, storeB] = make();
    const leaseMs = 300;
    const longCall = bulkhead(storeA, { leaseMs });
    for (let i = 0; i < 2; i++) expect(await longCall.acquire('gpu')).not.toBeNull();
    const dying = bulkhead(storeB, { leaseMs });
    expect(await dying.acquire('gpu')).not.toBeNull();
    // The dying worker stops renewing (killed); the long calls' worker goes on.
    dying.close();
    const other = bulkhead(storeB, { leaseMs });
    expect(await other.acquire('gpu')).toBeNull();
    await until(
      async () => other.acquire('gpu'),
      (p) => p !== null,
      "the dead worker's permit to lapse",
      5000,
    );
    // Well past three leases: the long calls still hold theirs.
    await new Promise((r) => setTimeout(r, 3 * leaseMs));
    expect((await storeA.held(['gpu'], Date.now()))[0]).toBe(3);
  });
});

describe('backend bulkhead, store unreachable', () => {
  it("a store that cannot be reached lets calls through under the worker's own limit, and says so", async () => {
    const errors: unknown[] = [];
    const broken: PermitStore = {
      acquire: () => Promise.reject(new Error('redis down')),
      renew: () => Promise.reject(new Error('redis down')),
      release: () => Promise.reject(new Error('redis down')),
      held: () => Promise.reject(new Error('redis down')),
    };
    const worker = createBackendBulkhead({
      limits: () => ({ maxInFlightPerWorker: 2, maxInFlight: 3 }),
      store: broken,
      now: Date.now,
      onStoreError: (e) => errors.push(e),
    });
    const permits = [await worker.acquire('gpu'), await worker.acquire('gpu'), await worker.acquire('gpu')];
    expect(permits.map((p) => p !== null)).toEqual([true, true, false]);
    worker.close();
    expect(errors).toEqual([new Error('redis down'), new Error('redis down')]);
  });
});
