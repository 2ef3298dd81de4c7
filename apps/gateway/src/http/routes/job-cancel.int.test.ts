import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { createBackendBulkhead, createJobCancellation, type JobStore } from '@promptpix/core';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import winston from 'winston';
import { createGenerationProcessor } from '@promptpix/worker';
import { JOB_FINISHED } from './job-cancel';

const silentLogger = winston.createLogger({ silent: true });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(SHAPES)('cancellation and deadlines (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  /** Prompts whose model call was told to stop. */
  const aborted = new Set<string>();
  /** A cancel to land inside a worker step, by job id: while the finished image is stored, or just after its record is saved. */
  const cancelDuring = { put: null as string | null, save: null as string | null };

  beforeAll(async () => {
    // One job at a time and a slow model: a second job waits in the queue while the first runs.
    service = await startTestService(
      shape,
      { WORKER_CONCURRENCY: '1', MODEL_LATENCY_MS: '1500' },
      {
        model: (configured) => ({
          ...configured,
          generate(request, signal) {
            signal?.addEventListener('abort', () => aborted.add(request.prompt));
            return configured.generate(request, signal);
          },
        }),
        instrument(infra) {
          const { storage, images } = infra;
          infra.storage = {
            ...storage,
            async put(key, data, contentType) {
              const jobId = cancelDuring.put;
              cancelDuring.put = null;
              if (jobId) await cancel(jobId);
              return storage.put(key, data, contentType);
            },
          };
          infra.images = {
            ...images,
            async save(image) {
              await images.save(image);
              if (image.jobId && image.jobId === cancelDuring.save) {
                cancelDuring.save = null;
                await cancel(image.jobId);
              }
            },
          };
        },
      },
    );
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const generate = (prompt: string, headers: Record<string, string> = {}) =>
    request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .set(headers)
      .send({ prompt, width: 256, height: 256 });
  const cancel = (jobId: string, key = account.secretKey) => request(service.baseUrl).delete(`/api/v1/job/${jobId}`).set('Authorization', `Bearer ${key}`);
  const job = async (jobId: string) => (await request(service.baseUrl).get(`/api/v1/job/${jobId}`).set('Authorization', `Bearer ${account.secretKey}`)).body;
  const quotaUsed = async () => (await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed;
  const until = async (check: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 200; i++)
      if (await check()) return;
      else await sleep(50);
    throw new Error(`timed out waiting for ${what}`);
  };
  const imageRecordsOf = (jobId: string) => service.infra.db.prisma.image.count({ where: { jobId } });
  /** Asks for the prompt again and waits: a cache hit makes no model call and charges nothing. */
  const askAgain = async (prompt: string) => {
    const [calls, used] = [service.modelCalls(), await quotaUsed()];
    const again = await service.waitForJob((await generate(prompt)).body.jobId, account.secretKey);
    expect(again.status).toBe('completed');
    return { modelCalls: service.modelCalls() - calls, charged: (await quotaUsed()) - used };
  };

  it('a queued job: leaves the queue, reads failed "cancelled", its unit comes back, the model never sees it', async () => {
    const running = (await generate('cancel test: the one running')).body.jobId;
    const queued = (await generate('cancel test: the one waiting')).body.jobId;
    await until(async () => (await job(running)).status === 'processing', 'the first job to run');
    expect(await quotaUsed()).toBe(2);
    const calls = service.modelCalls();

    const cancelled = await cancel(queued);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ jobId: queued, status: 'failed', error: 'cancelled', createdAt: expect.any(String), completedAt: expect.any(String) });
    expect(await quotaUsed()).toBe(1);
    expect((await cancel(queued)).body).toEqual(cancelled.body);

    expect((await service.waitForJob(running, account.secretKey)).status).toBe('completed');
    await sleep(300);
    expect(service.modelCalls()).toBe(calls);
    expect(await job(queued)).toEqual(cancelled.body);
  });

  it('a running job: the model call stops, the job stays cancelled, the unit stays charged (its model call had started)', async () => {
    const used = await quotaUsed();
    const jobId = (await generate('cancel test: stopped mid-way')).body.jobId;
    await until(async () => (await job(jobId)).status === 'processing', 'the job to run');
    const cancelled = await cancel(jobId);
    expect(cancelled.body).toMatchObject({ status: 'failed', error: 'cancelled' });
    await until(async () => aborted.has('cancel test: stopped mid-way'), 'the model call to be told to stop');
    await sleep(1800);
    expect(await job(jobId)).toMatchObject({ status: 'failed', error: 'cancelled' });
    expect(await quotaUsed()).toBe(used + 1);
    expect(await imageRecordsOf(jobId)).toBe(0);
    // The worker is free again: the next job runs to completion.
    const next = (await generate('cancel test: after the stop')).body.jobId;
    expect((await service.waitForJob(next, account.secretKey, 20_000)).status).toBe('completed');
  });

  it("a finished job is a 409; another account's or an unknown one a 404; a publishable key a 403", async () => {
    const done = await service.waitForJob((await generate('cancel test: finished')).body.jobId, account.secretKey);
    const finished = await cancel(done.jobId);
    expect(finished.status).toBe(409);
    expect(finished.body).toEqual({ error: JOB_FINISHED, job: done });
    const other = await service.createAccount();
    expect((await cancel(done.jobId, other.secretKey)).body).toEqual({ error: ErrorMessages.jobNotFound });
    expect((await cancel('no-such-job')).status).toBe(404);
    expect((await cancel(done.jobId, account.publishableKey)).body).toEqual({ error: ErrorMessages.publishableForbidden });
  });

  it('Cancel-After: a job not finished in time is cancelled, running or still queued; only the queued one is refunded', async () => {
    const used = await quotaUsed();
    // The one worker is busy with this one (no deadline) while the next waits past its deadline.
    const busy = (await generate('deadline test: keeps the worker busy')).body.jobId;
    const queued = (await generate('deadline test: waits too long', { 'Cancel-After': '1' })).body.jobId;
    await until(async () => (await job(queued)).status === 'failed', "the queued job's deadline");
    expect(await job(queued)).toMatchObject({ status: 'failed', error: 'cancelled' });
    expect(await quotaUsed()).toBe(used + 1);
    expect((await service.waitForJob(busy, account.secretKey, 20_000)).status).toBe('completed');

    const running = (await generate('deadline test: too slow', { 'Cancel-After': '1' })).body.jobId;
    await until(async () => (await job(running)).status === 'failed', "the running job's deadline");
    expect(await job(running)).toMatchObject({ status: 'failed', error: 'cancelled' });
    expect(await quotaUsed()).toBe(used + 2);
    const inTime = (await generate('deadline test: in time', { 'Cancel-After': '30' })).body.jobId;
    expect((await service.waitForJob(inTime, account.secretKey, 20_000)).status).toBe('completed');
  });

  it.each([['0'], ['3601'], ['soon'], ['1.5']])('Cancel-After: %j is a 400 naming the header', async (value) => {
    const answer = await generate('deadline test: bad header', { 'Cancel-After': value });
    expect(answer.status).toBe(400);
    expect(answer.body.details.fieldErrors['Cancel-After']).toEqual(['Must be a whole number of seconds from 1 to 3600']);
  });
  it('a cancel that loses the race to the worker completing the job changes nothing: completed, charged once', async () => {
    const used = await quotaUsed();
    const jobId = (await generate('cancel test: finished under the cancel')).body.jobId;
    await until(async () => (await job(jobId)).status === 'processing', 'the job to run');
    // The worker completes the job just after the cancel has read it as processing.
    const store = service.infra.jobStore;
    const completingUnderTheCancel: JobStore = {
      ...store,
      async get(id) {
        const read = await store.get(id);
        if (id === jobId)
          await store.update(
            id,
            { status: 'completed', imageId: '00000000-0000-4000-8000-000000000000', completedAt: new Date().toISOString() },
            { ifStatus: ['processing'] },
          );
        return read;
      },
    };
    const cancellation = createJobCancellation({ ...service.infra, jobStore: completingUnderTheCancel, now: () => new Date() });
    const { id: accountId } = (await service.infra.accounts.findByHandle(account.handle))!;
    const outcome = await cancellation.cancel(jobId, accountId);
    expect(outcome).toMatchObject({ kind: 'finished', job: { status: 'completed' } });
    expect(await job(jobId)).toMatchObject({ status: 'completed' });
    expect(await quotaUsed()).toBe(used + 1);
    // The real worker's own completion then finds the job no longer processing and leaves it be.
    await sleep(1800);
    expect(await job(jobId)).toMatchObject({ status: 'completed', imageId: '00000000-0000-4000-8000-000000000000' });
  });

  it.each([
    ['while the finished image is stored', 'put'],
    ['just after its image record is saved', 'save'],
  ] as const)('a cancel that lands %s: charged (the model ran), no image record, and the same prompt again is a new generation', async (_when, step) => {
    const prompt = `cancel test: landing during ${step}`;
    const used = await quotaUsed();
    const jobId = (await generate(prompt)).body.jobId;
    cancelDuring[step] = jobId;
    await until(async () => (await job(jobId)).status === 'failed', 'the cancel inside the worker step');
    expect(await job(jobId)).toMatchObject({ status: 'failed', error: 'cancelled' });
    await sleep(300);
    expect(await quotaUsed()).toBe(used + 1);
    expect(await imageRecordsOf(jobId)).toBe(0);
    expect(await askAgain(prompt)).toEqual({ modelCalls: 1, charged: 1 });
  });

  it('a final failure that loses the race to a cancel refunds nothing and keeps "cancelled"', async () => {
    const used = await quotaUsed();
    const jobId = (await generate('cancel test: failing under the cancel')).body.jobId;
    await until(async () => (await job(jobId)).status === 'processing', 'the job to run');
    // The worker's final-failure step reads the job just before a caller's cancel lands.
    const store = service.infra.jobStore;
    const { id: accountId } = (await service.infra.accounts.findByHandle(account.handle))!;
    const cancellation = createJobCancellation({ ...service.infra, now: () => new Date() });
    const cancelledUnderTheFailure: JobStore = {
      ...store,
      async get(id) {
        const read = await store.get(id);
        if (id === jobId) await cancellation.cancel(id, accountId);
        return read;
      },
    };
    const bulkhead = createBackendBulkhead({
      limits: (id) => service.infra.models.get(id)!.limits,
      store: service.infra.permits,
      now: Date.now,
      onStoreError: () => undefined,
    });
    const { infra } = service;
    const processor = createGenerationProcessor({
      model: infra.model,
      models: infra.models,
      breaker: infra.breaker,
      failedJobs: infra.failedJobs,
      storage: infra.storage,
      images: infra.images,
      permalinks: infra.permalinks,
      quota: infra.quota,
      events: infra.events,
      singleFlight: infra.singleFlight,
      activeJobs: infra.activeJobs,
      invalidation: infra.invalidation,
      accounts: infra.accounts,
      bulkhead,
      jobStore: cancelledUnderTheFailure,
      webhooks: service.infra.webhookNotifier,
      cancellation,
      characterFor: () => Promise.reject(new Error('unused')),
      logger: silentLogger,
      now: () => new Date(),
    });
    await processor.onFinalFailure({ jobId }, new Error('model timed out'));
    bulkhead.close();
    expect(await job(jobId)).toMatchObject({ status: 'failed', error: 'cancelled' });
    // The real worker's run, stopped by the cancel, ends through its own final-failure path too.
    await until(async () => aborted.has('cancel test: failing under the cancel'), 'the model call to be told to stop');
    await sleep(300);
    expect(await quotaUsed()).toBe(used + 1);
  });

  it('a cancel that read the job as queued just before a worker took it still stops the model call', async () => {
    const prompt = 'cancel test: taken under the cancel';
    const jobId = (await generate(prompt)).body.jobId;
    await until(async () => (await job(jobId)).status === 'processing', 'the job to run');
    const store = service.infra.jobStore;
    const readAsQueued: JobStore = {
      ...store,
      async get(id) {
        const read = await store.get(id);
        return read && id === jobId ? { ...read, status: 'queued' } : read;
      },
    };
    const { id: accountId } = (await service.infra.accounts.findByHandle(account.handle))!;
    await createJobCancellation({ ...service.infra, jobStore: readAsQueued, now: () => new Date() }).cancel(jobId, accountId);
    await until(async () => aborted.has(prompt), 'the model call to be told to stop');
    await sleep(300);
    expect(await imageRecordsOf(jobId)).toBe(0);
  });
});
