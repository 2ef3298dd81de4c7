import request from 'supertest';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('GET /api/v1/render (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape, { MODEL_LATENCY_MS: '300', RENDER_WAIT_MS: '10000' });
    account = await service.createAccount({ plan: 'business', monthlyGenerations: 5 });
  });
  afterAll(() => service.stop());

  const render = (query: string, key = account.secretKey) => request(service.baseUrl).get(`/api/v1/render?${query}&key=${key}`).redirects(0);

  it('the first request holds until the image exists and redirects; later ones redirect at once', async () => {
    const calls = service.modelCalls();
    const first = await render('prompt=a%20windmill%20in%20a%20tulip%20field&style=watercolor');
    expect(first.status).toBe(302);
    expect(first.headers['x-quota-used']).toBe('1');
    const image = await fetch(first.headers.location);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/webp');

    const second = await render('prompt=a%20windmill%20in%20a%20tulip%20field&style=watercolor');
    expect(second.status).toBe(302);
    expect(second.headers.location).toBe(first.headers.location);
    // Served from the cache: no second model call and no quota (a wall-clock bound here was flaky on a busy machine).
    expect(service.modelCalls() - calls).toBe(1);
    // Quota headers on a cache hit too (an extension), unchanged by it.
    expect(second.headers['x-quota-used']).toBe('1');
    expect(second.headers['x-quota-limit']).toBe(first.headers['x-quota-limit']);
  });

  it('another size of a cached image and a request joining one in flight carry the quota headers too, unchanged', async () => {
    const first = await render('prompt=a%20quota%20header%20harbour');
    const used = first.headers['x-quota-used'];
    const [derived, joinedA, joinedB] = await Promise.all([
      render('prompt=a%20quota%20header%20harbour&width=512&height=512'),
      render('prompt=a%20joined%20quota%20header%20kite'),
      render('prompt=a%20joined%20quota%20header%20kite'),
    ]);
    expect(derived.status).toBe(302);
    expect(derived.headers['x-quota-used']).toBe(used);
    expect(derived.headers['x-quota-limit']).toBe(first.headers['x-quota-limit']);
    // One of the two identical renders generated (charged), the other joined it (or, on a slow
    // machine, arrived after it finished: a cache hit, whose count may be a second old).
    expect([joinedA.status, joinedB.status]).toEqual([302, 302]);
    const counts = [joinedA, joinedB].map((r) => Number(r.headers['x-quota-used']));
    expect(Math.max(...counts)).toBe(Number(used) + 1);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(Number(used));
  });

  it('takes the key from the Authorization header too, and refuses publishable keys', async () => {
    const res = await request(service.baseUrl)
      .get('/api/v1/render?prompt=a%20windmill%20in%20a%20tulip%20field&style=watercolor')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .redirects(0);
    expect(res.status).toBe(302);
    const pk = await render('prompt=x', account.publishableKey);
    expect(pk.status).toBe(403);
  });

  it('400 naming the field for bad parameters', async () => {
    for (const [query, field] of [
      ['style=x', 'prompt'],
      ['prompt=x&width=100', 'width'],
      ['prompt=x&format=gif', 'format'],
      ['prompt=x&character=nope', 'character'],
    ]) {
      const res = await render(query);
      expect(res.status).toBe(400);
      expect(res.body.details.fieldErrors[field]).toBeDefined();
    }
  });

  it('503 with Retry-After and the jobId when the image is not ready in time; the job finishes later', async () => {
    const short = await startTestService(
      shape,
      { RENDER_WAIT_MS: '300' },
      {
        model: (inner) => ({
          name: inner.name,
          generate: async (req, signal) => {
            await new Promise((r) => setTimeout(r, 1500));
            return inner.generate(req, signal);
          },
        }),
      },
    );
    try {
      const acct = await short.createAccount();
      const res = await request(short.baseUrl).get(`/api/v1/render?prompt=a%20slow%20sunrise&key=${acct.secretKey}`).redirects(0);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({ error: expect.any(String), jobId: expect.any(String) });
      expect((await short.waitForJob(res.body.jobId, acct.secretKey)).status).toBe('completed');
      const again = await request(short.baseUrl).get(`/api/v1/render?prompt=a%20slow%20sunrise&key=${acct.secretKey}`).redirects(0);
      expect(again.status).toBe(302);
    } finally {
      await short.stop();
    }
  });

  it('out of quota: redirects to an existing image of the exact prompt in any style, else 402', async () => {
    await render('prompt=an%20owl%20at%20midnight');
    await render('prompt=a%20kite%20festival');
    expect((await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed).toBe(5);
    const fallback = await render('prompt=an%20owl%20at%20midnight&style=cartoon');
    expect(fallback.status).toBe(302);
    const refused = await render('prompt=something%20never%20made');
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ error: 'Generation quota exceeded', used: 5, limit: 5 });
  });
});
