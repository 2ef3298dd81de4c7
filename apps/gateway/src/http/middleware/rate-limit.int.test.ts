import request from 'supertest';
import { SHAPES, startGatewayPair, startTestService, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('rate limits (%s)', (shape) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(shape, {}, { worker: false });
  });
  afterAll(() => service.stop());

  it('free plan: 30 requests a minute per key, then 429 with retryAfterMs; polling is never limited', async () => {
    const account = await service.createAccount();
    const invalid = () => request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({ prompt: '' });
    const results = [];
    for (let i = 0; i < 31; i++) results.push(await invalid());
    expect(results.slice(0, 30).map((r) => r.status)).toEqual(Array(30).fill(400));
    expect(results[0].headers['x-ratelimit-limit']).toBe('30');
    expect(results[0].headers['x-ratelimit-remaining']).toBe('29');
    expect(results[29].headers['x-ratelimit-remaining']).toBe('0');
    const limited = results[30];
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Rate limit exceeded', retryAfterMs: expect.any(Number) });
    expect(limited.body.retryAfterMs).toBeGreaterThan(50_000);
    expect(limited.body.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(Number(limited.headers['retry-after'])).toBe(Math.ceil(limited.body.retryAfterMs / 1000));

    // Render shares the bucket; polling is not limited.
    const render = await request(service.baseUrl).get(`/api/v1/render?prompt=x&key=${account.secretKey}`);
    expect(render.status).toBe(429);
    for (let i = 0; i < 5; i++) {
      const poll = await request(service.baseUrl).get('/api/v1/job/nope').set('Authorization', `Bearer ${account.secretKey}`);
      expect(poll.status).toBe(404);
      expect(poll.headers['x-ratelimit-limit']).toBeUndefined();
    }
    // Another key of the same account has its own window.
    const other = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/keys`, { kind: 'secret', name: 'second' });
    const fresh = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${other.body.key}`).send({ prompt: '' });
    expect(fresh.status).toBe(400);
  });

  it('the ceiling follows the plan', async () => {
    const account = await service.createAccount({ plan: 'pro' });
    const res = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({});
    expect(res.headers['x-ratelimit-limit']).toBe('120');
  });
});

describe('two gateway processes on one Redis share the window', () => {
  let first: TestService;
  let second: TestService;
  let pair: Awaited<ReturnType<typeof startGatewayPair>>;
  beforeAll(async () => {
    pair = await startGatewayPair();
    ({ first, second } = pair);
  });
  afterAll(() => pair.stop());

  it('counts requests through either gateway against one limit', async () => {
    const account = await first.createAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++) {
      const base = i % 2 ? first.baseUrl : second.baseUrl;
      statuses.push((await request(base).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({})).status);
    }
    expect(statuses.filter((s) => s === 400)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
  });
});
