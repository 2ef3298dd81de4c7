import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { createJobCancellation, type JobStore } from '@promptpix/core';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/src/test-service';
import { JOB_FINISHED } from './job-cancel';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(SHAPES)('cancellation and deadlines (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    // One job at a time and a slow model: a second job waits in the queue while the first runs.
    service = await startTestService(shape, { WORKER_CONCURRENCY: '1', MODEL_LATENCY_MS: '1500' });
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const generate = (prompt: string, headers: Record<string, string> = {}) =>
    request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).set(headers).send({ prompt, width: 256, height: 256 });
  const cancel = (jobId: string, key = account.secretKey) => request(service.baseUrl).delete(`/api/v1/job/${jobId}`).set('Authorization', `Bearer ${key}`);
  const job = async (jobId: string) => (await request(service.baseUrl).get(`/api/v1/job/${jobId}`).set('Authorization', `Bearer ${account.secretKey}`)).body;
  const quotaUsed = async () => (await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed;
  const until = async (check: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 200; i++) if (await check()) return;
    else await sleep(50);
    throw new Error(`timed out waiting for ${what}`);
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

  it('a running job: the model call stops, the job stays cancelled, the unit is refunded once', async () => {
    const used = await quotaUsed();
    const jobId = (await generate('cancel test: stopped mid-way')).body.jobId;
    await until(async () => (await job(jobId)).status === 'processing', 'the job to run');
    const cancelled = await cancel(jobId);
    expect(cancelled.body).toMatchObject({ status: 'failed', error: 'cancelled' });
    await sleep(1800);
    expect(await job(jobId)).toMatchObject({ status: 'failed', error: 'cancelled' });
    expect(await quotaUsed()).toBe(used);
    // The worker is free again: the next job runs to completion.
    const next = (await generate('cancel test: after the stop')).body.jobId;
    expect((await service.waitForJob(next, account.secretKey, 20_000)).status).toBe('completed');
  });

  it('a finished job is a 409; another account\'s or an unknown one a 404; a publishable key a 403', async () => {
    const done = await service.waitForJob((await generate('cancel test: finished')).body.jobId, account.secretKey);
    const finished = await cancel(done.jobId);
    expect(finished.status).toBe(409);
    expect(finished.body).toEqual({ error: JOB_FINISHED, job: done });
    const other = await service.createAccount();
    expect((await cancel(done.jobId, other.secretKey)).body).toEqual({ error: ErrorMessages.jobNotFound });
    expect((await cancel('no-such-job')).status).toBe(404);
    expect((await cancel(done.jobId, account.publishableKey)).body).toEqual({ error: ErrorMessages.publishableForbidden });
  });

  it('Cancel-After: a job not finished in time is cancelled, running or still queued, and refunded', async () => {
    const used = await quotaUsed();
    const running = (await generate('deadline test: too slow', { 'Cancel-After': '1' })).body.jobId;
    const queued = (await generate('deadline test: waits too long', { 'Cancel-After': '1' })).body.jobId;
    await until(async () => (await job(running)).status === 'failed' && (await job(queued)).status === 'failed', 'both deadlines');
    expect(await job(running)).toMatchObject({ status: 'failed', error: 'cancelled' });
    expect(await job(queued)).toMatchObject({ status: 'failed', error: 'cancelled' });
    expect(await quotaUsed()).toBe(used);
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
        if (id === jobId) await store.update(id, { status: 'completed', imageId: '00000000-0000-4000-8000-000000000000', completedAt: new Date().toISOString() }, { ifStatus: ['processing'] });
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
});
