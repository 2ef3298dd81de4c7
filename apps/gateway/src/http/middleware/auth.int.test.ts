import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { SHAPES, startGatewayPair, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('authentication and CORS (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;
  let restricted: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape, {}, { worker: false });
    account = await service.createAccount();
    restricted = await service.createAccount({ domains: ['*.example.com', 'shop.io'] });
  });
  afterAll(() => service.stop());

  const job = (key?: string) => {
    const r = request(service.baseUrl).get('/api/v1/job/00000000-0000-4000-8000-000000000000');
    return key ? r.set('Authorization', `Bearer ${key}`) : r;
  };

  it('401 Missing API key without a key', async () => {
    const res = await job();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: ErrorMessages.missingKey });
  });

  it.each([
    ['an unknown key', `sk_live_${'x'.repeat(40)}`],
    ['a malformed key', 'not-a-key'],
    ['a key of another prefix', `sk_test_${'a'.repeat(40)}`],
  ])('401 Invalid API key for %s', async (_name, key) => {
    const res = await job(key);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: ErrorMessages.invalidKey });
  });

  it('accepts the key as a `key` query parameter', async () => {
    const res = await request(service.baseUrl).get(`/api/v1/job/unknown-job?key=${account.secretKey}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: ErrorMessages.jobNotFound });
  });

  it.each([
    ['pending', { error: ErrorMessages.pendingApproval, code: 'pending_approval' }],
    ['suspended', { error: ErrorMessages.suspended }],
    ['banned', { error: ErrorMessages.banned }],
  ])('403 for a %s account, on every keyed endpoint', async (status, body) => {
    const other = await service.createAccount({ status });
    for (const res of [
      await job(other.secretKey),
      await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${other.secretKey}`).send({ prompt: 'x' }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(body);
    }
  });

  it('approval takes effect on the next call', async () => {
    const other = await service.createAccount({ status: 'pending' });
    expect((await job(other.secretKey)).status).toBe(403);
    await service.admin('PATCH', `/admin/api/v1/accounts/${other.handle}`, { status: 'approved' });
    expect((await job(other.secretKey)).status).toBe(404);
  });

  it('403 with the exact message when a publishable key calls a secret endpoint', async () => {
    for (const res of [
      await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.publishableKey}`).send({ prompt: 'x' }),
      await request(service.baseUrl).get('/api/v1/image/00000000-0000-4000-8000-000000000000').set('Authorization', `Bearer ${account.publishableKey}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: ErrorMessages.publishableForbidden });
    }
  });

  it('publishable keys reach the job endpoint', async () => {
    expect((await job(account.publishableKey)).status).toBe(404);
  });

  const img = '00000000-0000-4000-8000-000000000000';
  it.each([
    ['post', '/api/v1/generate'],
    ['get', '/api/v1/render?prompt=x'],
    ['get', `/api/v1/image/${img}`],
    ['patch', `/api/v1/image/${img}/pin`],
    ['delete', `/api/v1/image/${img}/pin`],
    ['patch', `/api/v1/image/${img}/reject`],
    ['get', '/api/v1/characters'],
  ] as const)('publishable keys cannot %s %s', async (method, path) => {
    const res = await request(service.baseUrl)[method](path).set('Authorization', `Bearer ${account.publishableKey}`).send({ prompt: 'x' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: ErrorMessages.publishableForbidden });
  });

  it.each([
    ['get', '/api/v1/styles', 200],
    ['post', '/api/v1/embed/resolve', 200],
    ['post', '/api/v1/analytics/events', 202],
  ] as const)('publishable keys reach %s %s', async (method, path, status) => {
    const body = path.includes('embed') ? { elements: [{ id: 'a', shortcut: 'none' }] } : { events: [{ eventType: 'click' }] };
    const res = await request(service.baseUrl)[method](path).set('Authorization', `Bearer ${account.publishableKey}`).send(body);
    expect(res.status).toBe(status);
  });

  it('a revoked key answers 401 Invalid API key', async () => {
    const other = await service.createAccount();
    expect((await job(other.secretKey)).status).toBe(404);
    expect((await service.admin('DELETE', `/admin/api/v1/keys/${other.secretKeyId}`)).status).toBe(204);
    const res = await job(other.secretKey);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: ErrorMessages.invalidKey });
  });

  describe('domain lists and CORS', () => {
    const withOrigin = (key: string, origin?: string) => {
      const r = job(key);
      return origin ? r.set('Origin', origin) : r;
    };

    it.each([
      ['https://example.com', 'echo'],
      ['https://a.b.example.com', 'echo'],
      ['https://shop.io', 'echo'],
      ['http://localhost:5173', 'echo'],
      [undefined, 'none'],
    ])('origin %s passes a key with a domain list', async (origin, acao) => {
      const res = await withOrigin(restricted.publishableKey, origin);
      expect(res.status).toBe(404);
      if (acao === 'echo') {
        expect(res.headers['access-control-allow-origin']).toBe(origin);
        expect(res.headers.vary).toMatch(/Origin/);
      } else expect(res.headers['access-control-allow-origin']).not.toBe(origin);
    });

    it.each(['https://evil.io', 'https://example.com.evil.io', 'https://notshop.io'])(
      'blocks %s with 403 Origin not allowed and no allow-origin header',
      async (origin) => {
        const res = await withOrigin(restricted.publishableKey, origin);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: ErrorMessages.originNotAllowed });
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      },
    );

    it('a key without a domain list allows any origin with *', async () => {
      const res = await withOrigin(account.publishableKey, 'https://anywhere.dev');
      expect(res.status).toBe(404);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });

    it('answers preflight under /api/v1/ without a key', async () => {
      const res = await request(service.baseUrl)
        .options('/api/v1/generate')
        .set('Origin', 'https://anywhere.dev')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type,authorization');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toBe('GET,POST,OPTIONS');
      expect(res.headers['access-control-allow-headers']).toBe('Content-Type,Authorization');
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    });
  });

  it('never writes a key into the logs', async () => {
    await request(service.baseUrl).get(`/api/v1/job/x?key=${account.secretKey}`);
    await job(account.publishableKey);
    const all = service.logs.join('\n');
    expect(all).toContain('"path":"/api/v1/job/x"');
    expect(all).not.toContain(account.secretKey.slice(8));
    expect(all).not.toContain(account.publishableKey.slice(8));
  });
});

describe('key cache across gateway processes', () => {
  let first: TestService;
  let second: TestService;
  let pair: Awaited<ReturnType<typeof startGatewayPair>>;
  beforeAll(async () => {
    pair = await startGatewayPair();
    ({ first, second } = pair);
  });
  afterAll(() => pair.stop());

  const pollStatus = (base: string, key: string) =>
    request(base)
      .get('/api/v1/job/none')
      .set('Authorization', `Bearer ${key}`)
      .then((r) => r.status);
  const eventually = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 50; i++) {
      if (await check()) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  };

  it('a key revoked through one gateway stops working on the other (pub/sub eviction, not the cache ttl)', async () => {
    const account = await first.createAccount();
    expect(await pollStatus(second.baseUrl, account.secretKey)).toBe(404); // now cached in the second gateway
    await first.admin('DELETE', `/admin/api/v1/keys/${account.secretKeyId}`);
    expect(await pollStatus(first.baseUrl, account.secretKey)).toBe(401);
    expect(await eventually(async () => (await pollStatus(second.baseUrl, account.secretKey)) === 401)).toBe(true);
  });

  it("a key rotated through one gateway stops working on the other; the new key and the key's new settings work there", async () => {
    const account = await first.createAccount();
    expect(await pollStatus(second.baseUrl, account.publishableKey)).toBe(404); // cached in the second gateway
    const rotated = await first.admin('POST', `/admin/api/v1/keys/${account.publishableKeyId}/rotate`);
    expect(rotated.status).toBe(201);
    expect(await eventually(async () => (await pollStatus(second.baseUrl, account.publishableKey)) === 401)).toBe(true);
    expect(await pollStatus(second.baseUrl, rotated.body.key)).toBe(404);
    // Signed mode set through the first gateway reaches the second's cached key.
    await first.admin('PATCH', `/admin/api/v1/keys/${rotated.body.id}`, { signedPrompts: true });
    const unsigned = () =>
      request(second.baseUrl)
        .post('/api/v1/embed/resolve')
        .set('Authorization', `Bearer ${rotated.body.key}`)
        .send({ elements: [{ id: 'a', prompt: 'a prompt nobody signed' }] });
    expect(await eventually(async () => (await unsigned()).body.results?.[0]?.error?.includes('signed prompts') === true)).toBe(true);
  });

  it('suspending an account takes effect on every gateway', async () => {
    const account = await first.createAccount();
    expect(await pollStatus(second.baseUrl, account.publishableKey)).toBe(404);
    await first.admin('PATCH', `/admin/api/v1/accounts/${account.handle}`, { status: 'suspended' });
    expect(await eventually(async () => (await pollStatus(second.baseUrl, account.publishableKey)) === 403)).toBe(true);
  });
});
