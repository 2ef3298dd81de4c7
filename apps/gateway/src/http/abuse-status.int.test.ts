/**
 * A suspended or banned account is shut out everywhere within the invalidation bound, not only at
 * its keys: its permalinks stop serving and its queued jobs are not run (refunded).
 */
import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('account status reaches every door (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    // One job at a time and a slow model: the second job waits in the queue while the first runs.
    service = await startTestService(shape, { WORKER_CONCURRENCY: '1', MODEL_LATENCY_MS: '1500' });
    account = await service.createAccount({ plan: 'pro' });
  });
  afterAll(() => service.stop());

  const generate = (prompt: string) =>
    request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({ prompt, width: 256, height: 256 });
  const quotaUsed = async () => (await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed;
  /** The job as the store holds it (a suspended account's key can no longer read it). */
  const storedJob = async (jobId: string, done: (status: string) => boolean) => {
    for (;;) {
      const job = await service.infra.jobStore.get(jobId);
      if (job && done(job.status)) return job;
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('suspended: its permalinks answer 404 and its queued job is not run but refunded; banned likewise', async () => {
    const made = await service.waitForJob((await generate('a permalink image')).body.jobId, account.secretKey);
    expect((await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/permalinks`, { name: 'hero', imageIds: [made.imageId] })).status).toBe(201);
    expect((await request(service.baseUrl).get(`/api/img/${account.handle}/hero`)).status).toBe(302);

    const before = service.modelCalls();
    const running = (await generate('keeps the worker busy')).body.jobId;
    while (service.modelCalls() === before) await new Promise((r) => setTimeout(r, 25));
    const queued = (await generate('waits behind it')).body.jobId;
    expect(await quotaUsed()).toBe(3);
    const calls = service.modelCalls();

    expect((await service.admin('PATCH', `/admin/api/v1/accounts/${account.handle}`, { status: 'suspended' })).status).toBe(200);
    expect((await request(service.baseUrl).get(`/api/img/${account.handle}/hero`)).status).toBe(404);

    expect(await storedJob(queued, (s) => s === 'failed')).toMatchObject({ status: 'failed', error: ErrorMessages.suspended });
    expect((await storedJob(running, (s) => s === 'completed' || s === 'failed')).status).toBe('completed');
    // The running job's model call was the only one after the suspension; the queued one's unit came back.
    expect(service.modelCalls()).toBe(calls);
    expect(await quotaUsed()).toBe(2);

    expect((await service.admin('PATCH', `/admin/api/v1/accounts/${account.handle}`, { status: 'approved' })).status).toBe(200);
    expect((await request(service.baseUrl).get(`/api/img/${account.handle}/hero`)).status).toBe(302);
    expect((await service.admin('PATCH', `/admin/api/v1/accounts/${account.handle}`, { status: 'banned' })).status).toBe(200);
    expect((await request(service.baseUrl).get(`/api/img/${account.handle}/hero`)).status).toBe(404);
  });
});
