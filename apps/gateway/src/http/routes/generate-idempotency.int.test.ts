import request from 'supertest';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { IdempotencyMessages } from '../idempotency';

describe.each(SHAPES)('POST /api/v1/generate with Idempotency-Key (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape, { MODEL_LATENCY_MS: '300', LIBRARY_DELAY_SECONDS: '0' });
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const generate = (body: object, key?: string, secret = account.secretKey) => {
    const call = request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${secret}`);
    return (key === undefined ? call : call.set('Idempotency-Key', key)).send(body);
  };

  it('a retry with the same key and body gets the first answer again: one job, one model call, one quota unit', async () => {
    const key = `order-${shape}-1`;
    const first = await generate({ prompt: 'a harbour at dawn', width: 512, height: 512 }, key);
    expect(first.status).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same request written differently (another key order, a default spelled out) is the same request.
    const retry = await generate({ height: 512, width: 512, format: 'webp', prompt: 'a harbour at dawn' }, key);
    expect(retry.status).toBe(202);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['x-quota-used']).toBe(first.headers['x-quota-used']);
    await service.waitForJob(first.body.jobId, account.secretKey);
    const afterDone = await generate({ prompt: 'a harbour at dawn', width: 512, height: 512 }, key);
    expect(afterDone.body.jobId).toBe(first.body.jobId);
    expect(service.modelCalls()).toBe(1);
  });

  it('the same key with a different body is a 409, and costs nothing', async () => {
    const key = `order-${shape}-2`;
    const first = await generate({ prompt: 'a red balloon' }, key);
    expect(first.status).toBe(202);
    const other = await generate({ prompt: 'a blue balloon' }, key);
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: IdempotencyMessages.mismatch });
    expect(other.headers['x-quota-used']).toBeUndefined();
  });

  it('concurrent duplicates: one runs, the others get the same job or a 409 asking to retry', async () => {
    const key = `order-${shape}-3`;
    const answers = await Promise.all(Array.from({ length: 4 }, () => generate({ prompt: 'a paper crane on a desk' }, key)));
    const accepted = answers.filter((a) => a.status === 202);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted.map((a) => a.body.jobId)).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== 202)) {
      expect(a.status).toBe(409);
      expect(a.body).toEqual({ error: IdempotencyMessages.inProgress });
      expect(a.headers['retry-after']).toBe('1');
    }
  });

  it('a request that failed keeps nothing: the key works again, also with a corrected body', async () => {
    const key = `order-${shape}-4`;
    const failed = await generate({ prompt: 'a portrait', character: '00000000-0000-4000-8000-000000000000' }, key);
    expect(failed.status).toBe(400);
    const corrected = await generate({ prompt: 'a portrait' }, key);
    expect(corrected.status).toBe(202);
  });

  it('keys belong to one account', async () => {
    const other = await service.createAccount();
    const key = `order-${shape}-5`;
    const mine = await generate({ prompt: 'a windmill' }, key);
    const theirs = await generate({ prompt: 'a windmill' }, key, other.secretKey);
    expect(theirs.status).toBe(202);
    expect(theirs.body.jobId).not.toBe(mine.body.jobId);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('instant answers are replayed too', async () => {
    const done = await service.waitForJob((await generate({ prompt: 'a lighthouse in fog' })).body.jobId, account.secretKey);
    expect(done.status).toBe('completed');
    const key = `order-${shape}-6`;
    const first = await generate({ prompt: 'a lighthouse in fog', mode: 'instant' }, key);
    expect(first.status).toBe(200);
    const retry = await generate({ prompt: 'a lighthouse in fog', mode: 'instant' }, key);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it.each([[''], ['has spaces'], ['x'.repeat(256)]])('a malformed key %j is a 400 naming the header', async (key) => {
    const answer = await generate({ prompt: 'x' }, key);
    expect(answer.status).toBe(400);
    expect(answer.body.details.fieldErrors['Idempotency-Key']).toEqual(['Must be 1 to 255 visible ASCII characters']);
  });
});
