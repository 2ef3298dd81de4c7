/**
 * Behaviour every JobStore adapter must show. `elapse(ms)` lets time pass for the store:
 * a fake clock for the memory store, real waiting for Redis.
 */
import type { JobRecord, JobStore } from '@promptpix/core';

export interface JobStoreFixture {
  store: JobStore;
  elapse(ms: number): Promise<void>;
  stop(): Promise<void>;
}

let counter = 0;
export const sampleRecord = (overrides: Partial<JobRecord> = {}): JobRecord => ({
  jobId: `job-${process.pid}-${Date.now()}-${++counter}`,
  accountId: 'acct-1',
  status: 'queued',
  createdAt: '2030-01-01T00:00:00.000Z',
  request: { prompt: 'a red fox, "quoted" & ünïcödé', strength: 0.5, width: 1024, height: 768, format: 'webp', style: 'watercolor', ageBucket: 'kids' },
  quotaCharged: false,
  ...overrides,
});

export function describeJobStoreContract(name: string, makeStore: () => Promise<JobStoreFixture>): void {
  describe(`JobStore contract: ${name}`, () => {
    let fixture: JobStoreFixture;
    let store: JobStore;

    beforeEach(async () => {
      fixture = await makeStore();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture?.stop();
    });

    it('creates and gets a record exactly as stored', async () => {
      const record = sampleRecord();
      await store.create(record, 60);
      expect(await store.get(record.jobId)).toEqual(record);
      const got = await store.get(record.jobId);
      // false must come back as false, not vanish or become a string
      expect(got?.quotaCharged).toBe(false);
      expect(got).not.toHaveProperty('imageUrl');
    });

    it('keeps optional request fields absent when they were absent', async () => {
      const record = sampleRecord({ request: { prompt: 'p', strength: 1, width: 256, height: 256, format: 'png' } });
      delete record.quotaCharged;
      await store.create(record, 60);
      const got = await store.get(record.jobId);
      expect(got).toEqual(record);
      expect(got?.request).not.toHaveProperty('style');
      expect(got).not.toHaveProperty('quotaCharged');
    });

    it('returns null for an unknown job', async () => {
      expect(await store.get('no-such-job')).toBeNull();
    });

    it('merges an update and keeps every other field', async () => {
      const record = sampleRecord();
      await store.create(record, 60);
      expect(await store.update(record.jobId, { status: 'processing', startedAt: '2030-01-01T00:00:01.000Z', quotaCharged: true })).toBe(true);
      expect(
        await store.update(record.jobId, { status: 'completed', imageId: 'img-1', imageUrl: 'http://x/files/a.webp', completedAt: '2030-01-01T00:00:02.000Z' }),
      ).toBe(true);
      expect(await store.get(record.jobId)).toEqual({
        ...record,
        status: 'completed',
        startedAt: '2030-01-01T00:00:01.000Z',
        completedAt: '2030-01-01T00:00:02.000Z',
        imageId: 'img-1',
        imageUrl: 'http://x/files/a.webp',
        quotaCharged: true,
      });
    });

    it('never drops a field when a patch carries undefined', async () => {
      const record = sampleRecord({ error: 'first', imageId: 'img-1' });
      await store.create(record, 60);
      expect(await store.update(record.jobId, { error: undefined, imageId: undefined, status: 'failed' })).toBe(true);
      expect(await store.get(record.jobId)).toEqual({ ...record, status: 'failed' });
      expect(await store.update(record.jobId, {})).toBe(true);
      expect(await store.get(record.jobId)).toEqual({ ...record, status: 'failed' });
    });

    it('updates on a condition of status in one step: of a completion and a cancel, only the first applies', async () => {
      const record = sampleRecord({ status: 'processing' });
      await store.create(record, 60);
      const cancel = { status: 'failed' as const, error: 'cancelled' };
      const complete = { status: 'completed' as const, imageId: 'img-1' };
      const outcomes = await Promise.all([
        store.update(record.jobId, complete, { ifStatus: ['processing'] }),
        store.update(record.jobId, cancel, { ifStatus: ['queued', 'processing'] }),
      ]);
      expect(outcomes).toEqual([true, false]);
      expect(await store.get(record.jobId)).toEqual({ ...record, ...complete });
      // A prefix of the status does not pass ("complete" is not "completed").
      expect(await store.update(record.jobId, cancel, { ifStatus: ['complete' as JobRecord['status'], 'processing'] })).toBe(false);
      expect(await store.update(record.jobId, { imageUrl: 'http://x/a.webp' }, { ifStatus: ['completed'] })).toBe(true);
      expect((await store.get(record.jobId))!.imageUrl).toBe('http://x/a.webp');
      expect(await store.update('no-such-job', cancel, { ifStatus: ['queued'] })).toBe(false);
      expect(await store.get('no-such-job')).toBeNull();
    });

    it('refuses to update a missing job and does not create it', async () => {
      expect(await store.update('no-such-job', { status: 'failed', error: 'x' })).toBe(false);
      expect(await store.get('no-such-job')).toBeNull();
    });

    it('hands out copies, not its own objects', async () => {
      const record = sampleRecord();
      await store.create(record, 60);
      record.request.prompt = 'mutated after create';
      const got = (await store.get(record.jobId))!;
      got.request.prompt = 'mutated after get';
      expect((await store.get(record.jobId))?.request.prompt).toBe('a red fox, "quoted" & ünïcödé');
    });

    it('expires a record ttlSeconds after creation', async () => {
      const record = sampleRecord();
      await store.create(record, 1);
      await fixture.elapse(500);
      expect(await store.get(record.jobId)).not.toBeNull();
      await fixture.elapse(800);
      expect(await store.get(record.jobId)).toBeNull();
      expect(await store.update(record.jobId, { status: 'failed' })).toBe(false);
      expect(await store.get(record.jobId)).toBeNull();
    });

    it('does not extend the lifetime on update', async () => {
      const record = sampleRecord();
      await store.create(record, 1);
      await fixture.elapse(600);
      expect(await store.update(record.jobId, { status: 'processing' })).toBe(true);
      await fixture.elapse(700);
      expect(await store.get(record.jobId)).toBeNull();
    });

    it('replaces a record created again under the same id', async () => {
      const record = sampleRecord({ error: 'old' });
      await store.create(record, 60);
      const { error: _dropped, ...fresh } = record;
      await store.create(fresh, 60);
      expect(await store.get(record.jobId)).toEqual(fresh);
    });

    it('keeps a rendered image beside the record, byte for byte, until it is dropped', async () => {
      const record = sampleRecord({ status: 'processing' });
      await store.create(record, 60);
      const data = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256));
      const rendered = { data, key: 'images/abc.webp', contentType: 'image/webp', seed: 4_294_967_295, model: 'hosted', fallbackFrom: 'gpu' };
      expect(await store.rendered(record.jobId)).toBeNull();
      expect(await store.keepRendered(record.jobId, rendered)).toBe(true);
      const kept = await store.rendered(record.jobId);
      expect(kept).toEqual(rendered);
      expect(Buffer.compare(kept!.data, data)).toBe(0);
      // The record's own fields are untouched.
      expect(await store.get(record.jobId)).toEqual(record);
      await store.dropRendered(record.jobId);
      expect(await store.rendered(record.jobId)).toBeNull();
      await store.dropRendered('no-such-job');
    });

    it('keeps no rendered image for a job without a record, and forgets it when the record expires', async () => {
      const rendered = { data: Buffer.from('png'), key: 'images/x.png', contentType: 'image/png', seed: 1, model: 'procedural' };
      expect(await store.keepRendered('no-such-job', rendered)).toBe(false);
      expect(await store.rendered('no-such-job')).toBeNull();
      const record = sampleRecord();
      await store.create(record, 1);
      await fixture.elapse(500);
      expect(await store.keepRendered(record.jobId, rendered)).toBe(true);
      await fixture.elapse(800);
      expect(await store.rendered(record.jobId)).toBeNull();
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
