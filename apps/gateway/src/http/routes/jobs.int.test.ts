import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('GET /api/v1/job/:jobId (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    // A slow model keeps the job in flight long enough to observe it queued/processing.
    service = await startTestService(shape, { MODEL_LATENCY_MS: '400' });
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const poll = (jobId: string, key = account.secretKey) => request(service.baseUrl).get(`/api/v1/job/${jobId}`).set('Authorization', `Bearer ${key}`);

  it('shows only the fields that have a value, no-cache in flight, one minute once finished', async () => {
    const started = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'a fox in the snow' });
    const inFlight = await poll(started.body.jobId);
    expect(inFlight.status).toBe(200);
    expect(['queued', 'processing']).toContain(inFlight.body.status);
    expect(Object.keys(inFlight.body).sort()).toEqual(['createdAt', 'jobId', 'status']);
    expect(inFlight.headers['cache-control']).toBe('no-cache');

    const done = await service.waitForJob(started.body.jobId, account.secretKey);
    expect(done).toEqual({
      jobId: started.body.jobId,
      status: 'completed',
      createdAt: expect.any(String),
      completedAt: expect.any(String),
      imageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      imageUrl: expect.stringMatching(/^https?:\/\//),
      seed: expect.any(Number),
      // The built-in model says what it drew.
      revisedPrompt: 'a fox, snow',
    });
    expect(new Date(done.completedAt).getTime()).toBeGreaterThanOrEqual(new Date(done.createdAt).getTime());
    const cached = await poll(started.body.jobId);
    expect(cached.headers['cache-control']).toMatch(/max-age=60/);
  });

  it('publishable keys may poll', async () => {
    const started = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({ prompt: 'tea cup' });
    expect((await poll(started.body.jobId, account.publishableKey)).status).toBe(200);
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-job', '..%2F..%2Fetc', 'x'.repeat(300)])('404 Job not found for %s', async (jobId) => {
    const res = await poll(jobId);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: ErrorMessages.jobNotFound });
  });

  it("404 for another account's job, never 403", async () => {
    const started = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({ prompt: 'mine' });
    const other = await service.createAccount();
    const res = await poll(started.body.jobId, other.secretKey);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: ErrorMessages.jobNotFound });
  });

  it('an expired job is gone', async () => {
    const started = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({ prompt: 'ephemeral' });
    await service.waitForJob(started.body.jobId, account.secretKey);
    // Re-create the record with a one second lifetime to watch it expire.
    const record = await service.infra.jobStore.get(started.body.jobId);
    await service.infra.jobStore.create({ ...record!, jobId: `short-lived-${shape}` }, 1);
    expect((await poll(`short-lived-${shape}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await poll(`short-lived-${shape}`)).status).toBe(404);
  });
});
