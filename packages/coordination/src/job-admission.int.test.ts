import Redis from 'ioredis';
import type { JobAdmission, JobRecord, JobStore } from '@promptpix/core';
import { createMemoryJobStore, createRedisJobStore } from '@promptpix/queue';
import { TEST_REDIS_URL, testRedisPrefix } from '@promptpix/testing';
import { createMemoryActiveJobs, createRedisActiveJobs } from './active-jobs';
import { createComposedJobAdmission, createRedisJobAdmission } from './job-admission';

const redisClients: Redis[] = [];
afterAll(() => {
  for (const r of redisClients) r.disconnect();
});

/** An admission and the ports a worker releases through, on the same store. */
const shapes: Array<[string, () => { admission: JobAdmission; jobStore: JobStore; activeJobs: ReturnType<typeof createMemoryActiveJobs> }]> = [
  [
    'embedded',
    () => {
      const jobStore = createMemoryJobStore({});
      const activeJobs = createMemoryActiveJobs();
      return { admission: createComposedJobAdmission({ activeJobs, jobStore }), jobStore, activeJobs };
    },
  ],
  [
    'redis',
    () => {
      const redis = new Redis(TEST_REDIS_URL);
      redisClients.push(redis);
      const prefix = testRedisPrefix();
      return {
        admission: createRedisJobAdmission({ redis, prefix }),
        jobStore: createRedisJobStore({ redis, prefix }),
        activeJobs: createRedisActiveJobs({ redis, prefix }),
      };
    },
  ],
];

const job = (jobId: string, extra: Partial<JobRecord> = {}): JobRecord => ({
  jobId,
  accountId: 'acc',
  status: 'queued',
  createdAt: '2026-11-24T12:00:00.000Z',
  request: { prompt: 'a red kite', strength: 1, width: 256, height: 256, format: 'png' },
  ...extra,
});

describe.each(shapes)('job admission (%s)', (_name, make) => {
  const now = 1_000_000;

  it('writes the record as the job store reads it, with no cap when none is given', async () => {
    const { admission, jobStore } = make();
    const record = job('j-plain', { quotaCharged: true, quotaPeriodStart: '2026-11-01T00:00:00.000Z', flightKey: 'f1' });
    expect(await admission.open({ job: record, ttlSeconds: 60, nowMs: now })).toBe('opened');
    expect(await jobStore.get('j-plain')).toEqual(record);
  });

  it('admits up to the cap; a capped job writes nothing; a released slot admits the next', async () => {
    const { admission, jobStore, activeJobs } = make();
    const cap = { bucket: 'key-1', limit: 2 };
    expect(await admission.open({ job: job('a', { activeSlot: 'key-1' }), ttlSeconds: 60, nowMs: now, cap })).toBe('opened');
    expect(await admission.open({ job: job('b', { activeSlot: 'key-1' }), ttlSeconds: 60, nowMs: now, cap })).toBe('opened');
    expect(await admission.open({ job: job('c', { activeSlot: 'key-1' }), ttlSeconds: 60, nowMs: now, cap })).toBe('capped');
    expect(await jobStore.get('c')).toBeNull();
    // Another key has a cap of its own.
    expect(await admission.open({ job: job('d'), ttlSeconds: 60, nowMs: now, cap: { bucket: 'key-2', limit: 2 } })).toBe('opened');
    // The worker gives a slot back (as releaseJobHolds does) and the next job gets it.
    await activeJobs.release('key-1', 'a');
    expect(await admission.open({ job: job('c', { activeSlot: 'key-1' }), ttlSeconds: 60, nowMs: now, cap })).toBe('opened');
    expect((await jobStore.get('c'))?.activeSlot).toBe('key-1');
  });

  it('a lost job stops counting after its time to live', async () => {
    const { admission } = make();
    const cap = { bucket: 'key-lost', limit: 1 };
    expect(await admission.open({ job: job('lost'), ttlSeconds: 10, nowMs: now, cap })).toBe('opened');
    expect(await admission.open({ job: job('next'), ttlSeconds: 10, nowMs: now + 9_000, cap })).toBe('capped');
    expect(await admission.open({ job: job('next'), ttlSeconds: 10, nowMs: now + 10_001, cap })).toBe('opened');
  });

  it('concurrent opens never exceed the cap', async () => {
    const { admission, jobStore } = make();
    const cap = { bucket: 'key-race', limit: 3 };
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => admission.open({ job: job(`r${i}`), ttlSeconds: 60, nowMs: now, cap })));
    expect(outcomes.filter((o) => o === 'opened')).toHaveLength(3);
    const written = await Promise.all(outcomes.map((_, i) => jobStore.get(`r${i}`)));
    expect(written.filter(Boolean)).toHaveLength(3);
  });
});
