import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import type { ImageModel } from '@promptpix/core';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

/** The model fails prompts that ask for it, so a failed job's slot can be watched coming back. */
const failingOnRequest = (model: ImageModel): ImageModel => ({
  ...model,
  generate: async (req, signal) => {
    if (req.prompt.includes('please fail')) {
      await new Promise((r) => setTimeout(r, 200));
      throw Object.assign(new Error('Refused by the model: content policy'), { permanent: true });
    }
    return model.generate(req, signal);
  },
});

describe.each(SHAPES)('abuse limits (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(
      shape,
      { MODEL_LATENCY_MS: '700', ACTIVE_JOBS_PER_KEY_FREE: '2', PUBLISHABLE_IP_RATE_LIMIT: '4', TRUST_PROXY: 'loopback', JOB_ATTEMPTS: '1' },
      { model: failingOnRequest },
    );
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const generate = (prompt: string, key = account.secretKey) =>
    request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${key}`).send({ prompt });

  it("a key may have at most its plan's jobs queued or running; the next gets 429 with retryAfterMs and costs no quota", async () => {
    const first = await generate('a cap test: one');
    const second = await generate('a cap test: two');
    expect([first.status, second.status]).toEqual([202, 202]);
    const third = await generate('a cap test: three');
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: ErrorMessages.tooManyActiveJobs, retryAfterMs: 2000 });
    expect(third.headers['retry-after']).toBe('2');
    expect(third.headers['x-quota-used']).toBeUndefined();

    // Joining a generation in flight starts no new work, so it is not refused.
    const joined = await generate('a cap test: one');
    expect(joined.status).toBe(202);
    expect(joined.body.jobId).toBe(first.body.jobId);

    await service.waitForJob(first.body.jobId, account.secretKey);
    await service.waitForJob(second.body.jobId, account.secretKey);
    const after = await generate('a cap test: three');
    expect(after.status).toBe(202);
    expect(after.headers['x-quota-used']).toBe('3');
    await service.waitForJob(after.body.jobId, account.secretKey);
  });

  it('10 generations sent at once on a cap of 2: two are accepted and charged, eight get 429 and cost nothing', async () => {
    const burst = await service.createAccount();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => generate(`a cap burst: ${i}`, burst.secretKey)));
    expect(answers.map((r) => r.status).sort()).toEqual([202, 202, ...Array(8).fill(429)]);
    expect((await service.admin('GET', `/admin/api/v1/accounts/${burst.handle}`)).body.quotaUsed).toBe(2);
    for (const accepted of answers.filter((r) => r.status === 202)) await service.waitForJob(accepted.body.jobId, burst.secretKey);
  });

  it('a failed job gives its slot back', async () => {
    const failing = [await generate('please fail, one'), await generate('please fail, two')];
    expect(failing.map((r) => r.status)).toEqual([202, 202]);
    for (const f of failing) expect((await service.waitForJob(f.body.jobId, account.secretKey)).status).toBe('failed');
    const next = await generate('a cap test: after failures');
    expect(next.status).toBe(202);
    await service.waitForJob(next.body.jobId, account.secretKey);
  });

  it("each key has its own slots; an embed element over its key's cap comes back failed while the others resolve", async () => {
    const other = await service.createAccount();
    const resolve = await request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${other.publishableKey}`)
      .send({
        elements: [
          { id: 'a', prompt: 'embed cap one' },
          { id: 'b', prompt: 'embed cap two' },
          { id: 'c', prompt: 'embed cap three' },
        ],
      });
    expect(resolve.status).toBe(200);
    const statuses = resolve.body.results.map((r: { status: string }) => r.status).sort();
    expect(statuses).toEqual(['failed', 'generating', 'generating']);
    expect(resolve.body.results.find((r: { status: string }) => r.status === 'failed').error).toBe(ErrorMessages.tooManyActiveJobs);
    // The account's secret key still has both of its own slots.
    const viaSecret = [await generate('secret one', other.secretKey), await generate('secret two', other.secretKey)];
    expect(viaSecret.map((r) => r.status)).toEqual([202, 202]);
  });

  it('a publishable key is also limited per client IP; other IPs and secret keys are not affected', async () => {
    const fresh = await service.createAccount();
    const events = (ip: string, key = fresh.publishableKey) =>
      request(service.baseUrl)
        .post('/api/v1/analytics/events')
        .set('Authorization', `Bearer ${key}`)
        .set('X-Forwarded-For', ip)
        .send({ events: [{ eventType: 'impression' }] });
    for (let i = 0; i < 4; i++) expect((await events('203.0.113.7')).status).toBe(202);
    const limited = await events('203.0.113.7');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: ErrorMessages.rateLimited, retryAfterMs: expect.any(Number) });
    expect((await events('198.51.100.9')).status).toBe(202);
    for (let i = 0; i < 6; i++) expect((await events('203.0.113.7', fresh.secretKey)).status).toBe(202);
  });
});
