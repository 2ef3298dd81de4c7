import request from 'supertest';
import sharp from 'sharp';
import { TransientModelError } from '@promptpix/core';
import { PermanentModelError } from '@promptpix/models';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('render cache, single flight and quota (%s)', (shape) => {
  let service: TestService;
  let refusals = 0;

  beforeAll(async () => {
    service = await startTestService(
      shape,
      { MODEL_LATENCY_MS: '300' },
      {
        // A provider that fails for prompts containing "explode": the worker retries, then fails the job.
        model: (inner) => ({
          name: inner.name,
          generate: async (req, signal) => {
            if (req.prompt.includes('explode')) throw new TransientModelError('model returned HTTP 503');
            if (req.prompt.includes('forbidden')) refusals++;
            if (req.prompt.includes('forbidden')) throw new PermanentModelError('openai: HTTP 400: Your request was rejected by the safety system');
            return inner.generate(req, signal);
          },
        }),
      },
    );
  });
  afterAll(() => service.stop());

  const generate = (account: TestAccount, body: object) =>
    request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send(body);
  const quotaUsed = async (account: TestAccount) => (await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed;

  it('100 concurrent identical requests make exactly one generation and charge one unit', async () => {
    const account = await service.createAccount({ plan: 'business' });
    const before = service.modelCalls();
    const responses = await Promise.all(Array.from({ length: 100 }, () => generate(account, { prompt: 'a  crowded   harbour at dawn' })));
    expect(responses.map((r) => r.status)).toEqual(Array(100).fill(202));
    // Requests arriving while it runs join its job; those arriving after it finished are cache
    // hits with jobs of their own. Either way: one image.
    const jobIds = [...new Set(responses.map((r) => r.body.jobId))];
    const jobs = await Promise.all(jobIds.map((id) => service.waitForJob(id, account.secretKey)));
    expect(new Set(jobs.map((j) => j.status))).toEqual(new Set(['completed']));
    expect(new Set(jobs.map((j) => j.imageId)).size).toBe(1);
    expect(service.modelCalls() - before).toBe(1);
    expect(await quotaUsed(account)).toBe(1);
  });

  it('a repeat request is served from the cache: no model call, no quota, a job that is already complete', async () => {
    const account = await service.createAccount();
    const first = await generate(account, { prompt: 'A quiet library with tall shelves', style: 'watercolor' });
    const original = await service.waitForJob(first.body.jobId, account.secretKey);
    const calls = service.modelCalls();
    const again = await generate(account, { prompt: '  A quiet   library with tall shelves ', style: 'watercolor' });
    expect(again.status).toBe(202);
    expect(again.headers['x-quota-used']).toBe('1');
    const poll = await request(service.baseUrl).get(`/api/v1/job/${again.body.jobId}`).set('Authorization', `Bearer ${account.secretKey}`);
    expect(poll.body).toMatchObject({ status: 'completed', imageId: original.imageId, imageUrl: original.imageUrl });
    expect(service.modelCalls()).toBe(calls);
    expect(await quotaUsed(account)).toBe(1);
    // Case is part of the key, and so is the style: both are fresh generations.
    await generate(account, { prompt: 'a quiet library with tall shelves', style: 'watercolor' });
    await generate(account, { prompt: 'A quiet library with tall shelves' });
    expect(await quotaUsed(account)).toBe(3);
  });

  it('another size or format of a cached image is derived with sharp, not regenerated, and then reused', async () => {
    const account = await service.createAccount();
    const first = await generate(account, { prompt: 'a paper boat on a puddle' });
    const original = await service.waitForJob(first.body.jobId, account.secretKey);
    const calls = service.modelCalls();

    const variant = await generate(account, { prompt: 'a paper boat on a puddle', width: 512, height: 256, format: 'png' });
    expect(variant.status).toBe(202);
    const derived = await service.waitForJob(variant.body.jobId, account.secretKey);
    expect(derived.status).toBe('completed');
    expect(derived.imageId).not.toBe(original.imageId);
    const file = Buffer.from(await (await fetch(derived.imageUrl)).arrayBuffer());
    const meta = await sharp(file).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 512, 256]);
    const record = await service.infra.db.prisma.image.findUnique({ where: { id: derived.imageId } });
    expect(record?.sourceImageId).toBe(original.imageId);

    const again = await generate(account, { prompt: 'a paper boat on a puddle', width: 512, height: 256, format: 'png' });
    const reused = await request(service.baseUrl).get(`/api/v1/job/${again.body.jobId}`).set('Authorization', `Bearer ${account.secretKey}`);
    expect(reused.body).toMatchObject({ status: 'completed', imageId: derived.imageId });
    expect(service.modelCalls()).toBe(calls);
    expect(await quotaUsed(account)).toBe(1);
  });

  it('the cache is per account', async () => {
    const a = await service.createAccount();
    const b = await service.createAccount();
    await service.waitForJob((await generate(a, { prompt: 'a shared prompt' })).body.jobId, a.secretKey);
    const other = await generate(b, { prompt: 'a shared prompt' });
    expect(other.headers['x-quota-used']).toBe('1');
  });

  it('5 generations left and 50 concurrent distinct requests: exactly 5 accepted, 45 get 402', async () => {
    const account = await service.createAccount({ plan: 'business', monthlyGenerations: 5 });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => generate(account, { prompt: `distinct prompt number ${i}` })));
    const accepted = responses.filter((r) => r.status === 202);
    const refused = responses.filter((r) => r.status === 402);
    expect(accepted).toHaveLength(5);
    expect(refused).toHaveLength(45);
    for (const r of refused) {
      expect(r.body).toMatchObject({ error: 'Generation quota exceeded', used: 5, limit: 5 });
      expect(Number(r.headers['x-quota-used'])).toBeLessThanOrEqual(5);
    }
    expect(await quotaUsed(account)).toBe(5);
  });

  it("a provider's permanent refusal fails the job at once, without retries", async () => {
    const account = await service.createAccount();
    const res = await generate(account, { prompt: 'something forbidden' });
    const job = await service.waitForJob(res.body.jobId, account.secretKey);
    expect(job).toMatchObject({ status: 'failed', error: 'Image generation failed: openai: HTTP 400: Your request was rejected by the safety system' });
    expect(refusals).toBe(1);
    expect(await quotaUsed(account)).toBe(0);
  });

  it('a failed generation gives its unit back and carries a readable error', async () => {
    const account = await service.createAccount({ monthlyGenerations: 1 });
    const res = await generate(account, { prompt: 'this will explode' });
    expect(res.status).toBe(202);
    expect(await quotaUsed(account)).toBe(1);
    const job = await service.waitForJob(res.body.jobId, account.secretKey);
    expect(job).toMatchObject({ status: 'failed', error: 'Image generation failed: model returned HTTP 503' });
    expect(job.imageUrl).toBeUndefined();
    expect(await quotaUsed(account)).toBe(0);
    // With the unit back, the account can generate again.
    expect((await generate(account, { prompt: 'a calm lake' })).status).toBe(202);
  });
});
