import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('POST /api/v1/embed/resolve (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape, { LIBRARY_DELAY_SECONDS: '0' });
    account = await service.createAccount({ plan: 'business', domains: ['*.shop.io'] });
    await service.admin('POST', '/admin/api/v1/library/seed');
  });
  afterAll(() => service.stop());

  const resolve = (body: unknown, key = account.publishableKey, origin?: string) => {
    const r = request(service.baseUrl).post('/api/v1/embed/resolve').set('Authorization', `Bearer ${key}`);
    return (origin ? r.set('Origin', origin) : r).send(body as object);
  };
  const generated = async (prompt: string) => {
    const res = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt, width: 256, height: 256 });
    return service.waitForJob(res.body.jobId, account.secretKey);
  };

  it('resolves the three element kinds in the order sent, with exactly the fields the spec lists', async () => {
    const cached = await generated('an embedded teapot');
    await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/permalinks`, { name: 'teapot', imageIds: [cached.imageId] });
    const res = await resolve({
      elements: [
        { id: 'fresh', prompt: 'a brand new embed prompt', width: 320, height: 256 },
        { id: 'cached', prompt: 'an embedded teapot', width: 256, height: 256 },
        { id: 'short', shortcut: 'teapot' },
        { id: 'instant', prompt: 'a lighthouse on a rocky coast at sunset', mode: 'instant' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { id: 'fresh', status: 'generating', jobId: expect.any(String) },
      { id: 'cached', status: 'ready', imageUrl: cached.imageUrl, imageId: cached.imageId },
      { id: 'short', status: 'ready', imageUrl: cached.imageUrl, imageId: cached.imageId },
      {
        id: 'instant',
        status: 'ready',
        imageUrl: expect.any(String),
        imageId: expect.any(String),
        match: 'exact',
        matchScore: 1,
        poolImageId: expect.any(String),
      },
    ]);
    // The publishable key may poll the job it got.
    const job = await service.waitForJob(res.body.results[0].jobId, account.publishableKey);
    expect(job.status).toBe('completed');
    // Now it is cached.
    const again = await resolve({ elements: [{ id: 'fresh', prompt: 'a brand new embed prompt', width: 320, height: 256 }] });
    expect(again.body.results[0]).toEqual({ id: 'fresh', status: 'ready', imageUrl: job.imageUrl, imageId: job.imageId });
  });

  it('looks up the cache of a whole batch in one database query', async () => {
    const prompts = ['batch one', 'batch two', 'batch three'];
    for (const p of prompts) await generated(p);
    const many = jest.spyOn(service.infra.images, 'findCachedMany');
    const single = jest.spyOn(service.infra.images, 'findCached');
    const elements = Array.from({ length: 50 }, (_, i) => ({ id: `e${i}`, prompt: prompts[i % 3], width: 256, height: 256 }));
    const res = await resolve({ elements });
    expect(res.body.results.every((r: { status: string }) => r.status === 'ready')).toBe(true);
    expect(many).toHaveBeenCalledTimes(1);
    expect(single).not.toHaveBeenCalled();
    many.mockRestore();
    single.mockRestore();
  });

  it('a batch tells cached images apart by negative prompt, long prompts included, in one query', async () => {
    const long = `a long embed prompt ${'ж'.repeat(1900)}`;
    const make = async (body: object) => {
      const res = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .send({ prompt: long, width: 256, height: 256, ...body });
      return service.waitForJob(res.body.jobId, account.secretKey);
    };
    const plain = await make({});
    const noBoats = await make({ negativePrompt: `boats ${'ё'.repeat(1900)}` });
    const noBirds = await make({ negativePrompt: 'birds' });
    const many = jest.spyOn(service.infra.images, 'findCachedMany');
    const res = await resolve({
      elements: [
        { id: 'birds', prompt: long, negativePrompt: 'birds', width: 256, height: 256 },
        { id: 'plain', prompt: long, width: 256, height: 256 },
        { id: 'boats', prompt: long, negativePrompt: `boats ${'ё'.repeat(1900)}`, width: 256, height: 256 },
        { id: 'other', prompt: long, negativePrompt: 'fish', width: 256, height: 256 },
      ],
    });
    expect(res.body.results.slice(0, 3)).toEqual([
      { id: 'birds', status: 'ready', imageUrl: noBirds.imageUrl, imageId: noBirds.imageId },
      { id: 'plain', status: 'ready', imageUrl: plain.imageUrl, imageId: plain.imageId },
      { id: 'boats', status: 'ready', imageUrl: noBoats.imageUrl, imageId: noBoats.imageId },
    ]);
    // A negative prompt never stored is a fresh generation, not one of the others.
    expect(res.body.results[3]).toEqual({ id: 'other', status: 'generating', jobId: expect.any(String) });
    expect(many).toHaveBeenCalledTimes(1);
    many.mockRestore();
  });

  it("a styled element is served from the cache whatever the preset's spelling", async () => {
    const res = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'a styled embed kettle', style: 'watercolor', width: 256, height: 256 });
    const job = await service.waitForJob(res.body.jobId, account.secretKey);
    const many = jest.spyOn(service.infra.images, 'findCachedMany');
    const resolved = await resolve({ elements: [{ id: 'k', prompt: 'a styled embed kettle', style: ' Watercolor', width: 256, height: 256 }] });
    expect(resolved.body.results).toEqual([{ id: 'k', status: 'ready', imageUrl: job.imageUrl, imageId: job.imageId }]);
    expect(many).toHaveBeenCalledTimes(1);
    many.mockRestore();
  });

  it('one failing element never fails the batch; an element over quota comes back failed', async () => {
    const small = await service.createAccount({ plan: 'business', monthlyGenerations: 1 });
    const res = await resolve(
      {
        elements: [
          { id: 'a', prompt: 'quota one' },
          { id: 'b', prompt: 'quota two' },
          { id: 'c', shortcut: 'no-such-permalink' },
          { id: 'd', prompt: 'zzqx vvbn', mode: 'instant' },
        ],
      },
      small.publishableKey,
    );
    expect(res.status).toBe(200);
    const [a, b, c, d] = res.body.results;
    expect([a.status, b.status].sort()).toEqual(['failed', 'generating']);
    expect([a, b].find((r: { status: string }) => r.status === 'failed').error).toBe(ErrorMessages.quotaExceeded);
    expect(c).toEqual({ id: 'c', status: 'failed', error: expect.any(String) });
    expect(d).toEqual({ id: 'd', status: 'failed', error: 'No library image is close enough' });
  });

  it.each([
    ['no elements', { elements: [] }],
    ['51 elements', { elements: Array.from({ length: 51 }, (_, i) => ({ id: `e${i}`, prompt: 'x' })) }],
    [
      'an element with neither prompt nor shortcut',
      {
        elements: [
          { id: 'a', prompt: 'ok' },
          { id: 'b', style: 'cartoon' },
        ],
      },
    ],
    ['an id over 100 characters', { elements: [{ id: 'x'.repeat(101), prompt: 'x' }] }],
    ['a shortcut over 200 characters', { elements: [{ id: 'a', shortcut: 's'.repeat(201) }] }],
    ['a width of 255', { elements: [{ id: 'a', prompt: 'x', width: 255 }] }],
    ['eleven tags', { elements: [{ id: 'a', prompt: 'x', tags: Array(11).fill('t') }] }],
    ['age as an array', { elements: [{ id: 'a', prompt: 'x', age: ['kids'] }] }],
    ['no body', undefined],
  ])('400 Invalid request for %s', async (_name, body) => {
    const res = await resolve(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(ErrorMessages.invalidRequest);
    expect(res.body.details).toEqual({ formErrors: expect.any(Array), fieldErrors: expect.any(Object) });
  });

  it('accepts a width that is not a multiple of 64 (embed bounds are 256 to 2048)', async () => {
    const res = await resolve({ elements: [{ id: 'odd', prompt: 'odd size', width: 300, height: 301 }] });
    expect(res.body.results[0].status).toBe('generating');
  });

  it('enforces the key domain list with 403 Origin not allowed, echoing allowed origins', async () => {
    const blocked = await resolve({ elements: [{ id: 'a', prompt: 'x' }] }, account.publishableKey, 'https://evil.io');
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ error: ErrorMessages.originNotAllowed });
    const allowed = await resolve({ elements: [{ id: 'a', shortcut: 'teapot' }] }, account.publishableKey, 'https://www.shop.io');
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://www.shop.io');
  });

  it('401 without a key, 403 for a pending account', async () => {
    expect(
      (
        await request(service.baseUrl)
          .post('/api/v1/embed/resolve')
          .send({ elements: [{ id: 'a', prompt: 'x' }] })
      ).status,
    ).toBe(401);
    const pending = await service.createAccount({ status: 'pending' });
    const res = await resolve({ elements: [{ id: 'a', prompt: 'x' }] }, pending.publishableKey);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('pending_approval');
  });

  it('is rate limited with the generate bucket', async () => {
    const free = await service.createAccount();
    let last: Awaited<ReturnType<typeof resolve>> | undefined;
    for (let i = 0; i < 31; i++) last = await resolve({ elements: [{ id: 'a', shortcut: 'none' }] }, free.publishableKey);
    expect(last!.status).toBe(429);
    expect(last!.body).toEqual({ error: 'Rate limit exceeded', retryAfterMs: expect.any(Number) });
  });
});
