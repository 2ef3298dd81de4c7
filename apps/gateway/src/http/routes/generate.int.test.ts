import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('POST /api/v1/generate (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape);
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const generate = (body: unknown, key = account.secretKey) =>
    request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${key}`)
      .send(body as object);

  it('202 { jobId, status: queued } with quota headers; the job completes', async () => {
    const res = await generate({ prompt: 'a lighthouse on a cliff at sunset' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ jobId: expect.any(String), status: 'queued' });
    expect(res.headers['x-quota-used']).toBe('1');
    expect(res.headers['x-quota-limit']).toBe('100');
    expect(new Date(res.headers['x-quota-reset']).getTime()).toBeGreaterThan(Date.now());
    const job = await service.waitForJob(res.body.jobId, account.secretKey);
    expect(job.status).toBe('completed');
  });

  it.each([
    ['prompt missing', {}, 'prompt'],
    ['prompt empty', { prompt: '' }, 'prompt'],
    ['prompt blank', { prompt: '   ' }, 'prompt'],
    ['prompt too long', { prompt: 'x'.repeat(2001) }, 'prompt'],
    ['prompt not a string', { prompt: 42 }, 'prompt'],
    ['width not a multiple of 64', { prompt: 'x', width: 1000 }, 'width'],
    ['width too small', { prompt: 'x', width: 192 }, 'width'],
    ['width too large', { prompt: 'x', width: 2112 }, 'width'],
    ['height not an integer', { prompt: 'x', height: 512.5 }, 'height'],
    ['height as a string', { prompt: 'x', height: '512' }, 'height'],
    ['strength above 1', { prompt: 'x', strength: 1.5 }, 'strength'],
    ['strength below 0', { prompt: 'x', strength: -0.1 }, 'strength'],
    ['unknown format', { prompt: 'x', format: 'gif' }, 'format'],
    ['two age buckets', { prompt: 'x', ageBuckets: ['kids', 'adults'] }, 'ageBuckets'],
    ['unknown age bucket', { prompt: 'x', ageBuckets: ['teens'] }, 'ageBuckets'],
    ['unknown mode', { prompt: 'x', mode: 'fast' }, 'mode'],
    ['character not a uuid', { prompt: 'x', character: 'bob' }, 'character'],
    ['unknown character', { prompt: 'x', character: '00000000-0000-4000-8000-000000000000' }, 'character'],
  ])('400 naming the field: %s', async (_name, body, field) => {
    const res = await generate(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(ErrorMessages.invalidRequest);
    expect(res.body.details.fieldErrors[field]).toEqual([expect.any(String)]);
    expect(Array.isArray(res.body.details.formErrors)).toBe(true);
  });

  it('accepts the boundaries: prompt of 2000 characters, 256 and 2048 sizes, strength 0 and 1', async () => {
    for (const body of [
      { prompt: 'y'.repeat(2000), width: 256, height: 2048, strength: 0 },
      { prompt: 'z', width: 2048, height: 256, strength: 1, format: 'png', ageBuckets: ['kids'] },
    ]) {
      const res = await generate(body);
      expect(res.status).toBe(202);
    }
  });

  it('ignores unknown fields', async () => {
    expect((await generate({ prompt: 'a red kite', colour: 'blue' })).status).toBe(202);
  });

  it('400 Invalid JSON for a body that is not JSON', async () => {
    const res = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .set('Content-Type', 'application/json')
      .send('{"prompt": "unterminated');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: ErrorMessages.invalidJson });
  });

  it('400 Invalid request when the body is missing or not an object', async () => {
    for (const body of [undefined, [1, 2], 'text']) {
      const r = request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`);
      const res = body === undefined ? await r : await r.set('Content-Type', 'application/json').send(JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(ErrorMessages.invalidRequest);
    }
  });

  it('413 JSON error for a body over 1 MiB', async () => {
    const res = await generate({ prompt: 'x', padding: 'p'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: ErrorMessages.payloadTooLarge });
  });

  it('402 with used, limit, resetAt and quota headers when the month is used up', async () => {
    const small = await service.createAccount({ monthlyGenerations: 2 });
    expect((await generate({ prompt: 'one' }, small.secretKey)).status).toBe(202);
    expect((await generate({ prompt: 'two' }, small.secretKey)).status).toBe(202);
    const res = await generate({ prompt: 'three' }, small.secretKey);
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ error: ErrorMessages.quotaExceeded, used: 2, limit: 2, resetAt: expect.any(String) });
    expect(res.headers['x-quota-used']).toBe('2');
    expect(res.headers['x-quota-limit']).toBe('2');
    expect(res.headers['x-quota-reset']).toBe(res.body.resetAt);
  });

  it('concurrent requests never push used above the limit', async () => {
    const small = await service.createAccount({ monthlyGenerations: 5 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => generate({ prompt: `prompt ${i}` }, small.secretKey)));
    expect(results.filter((r) => r.status === 202)).toHaveLength(5);
    expect(results.filter((r) => r.status === 402)).toHaveLength(15);
    const after = await service.admin('GET', `/admin/api/v1/accounts/${small.handle}`);
    expect(after.body.quotaUsed).toBe(5);
  });
});
