import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startTestService, type TestService } from '@promptpix/server/testing';

describe('gateway basics (embedded)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('embedded', {}, { worker: false });
  });
  afterAll(() => service.stop());

  it('GET /api/health answers the exact body without a key', async () => {
    const res = await request(service.baseUrl).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', service: 'promptpix', timestamp: expect.any(String) });
    expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
  });

  it('every response carries a request id and basic security headers', async () => {
    const res = await request(service.baseUrl).get('/api/health');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it.each(['/api/v1/job/%E0%A4%A', '/api/img/%zz/x', '/api/v1/image/%'])('a malformed path escape is a 400, not a 500: %s', async (path) => {
    const res = await request(service.baseUrl)
      .get(path)
      .set('Authorization', `Bearer sk_live_${'a'.repeat(40)}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error).toEqual(expect.any(String));
  });

  it('the root tells a newcomer where to go: links for a browser, the same as JSON for a client', async () => {
    const page = await request(service.baseUrl).get('/').set('Accept', 'text/html,application/xhtml+xml');
    expect([page.status, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    for (const path of ['/dashboard', '/docs', '/api/health']) expect(page.text).toContain(`${service.baseUrl}${path}"`);
    const links = await request(service.baseUrl).get('/');
    expect(links.body).toMatchObject({ service: 'promptpix', health: `${service.baseUrl}/api/health`, dashboard: `${service.baseUrl}/dashboard` });
    expect((await request(service.baseUrl).get(new URL(links.body.health).pathname)).status).toBe(200);
  });

  it('unknown routes are a JSON 404', async () => {
    const res = await request(service.baseUrl).get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });

  it.each(['/files/../secret.txt', '/files/%2e%2e/secret.txt', '/files/..%2fsecret.txt', '/files/images/../../secret.txt', '/files/%2e%2e%2fsecret.txt'])(
    'the file route cannot escape its directory: %s',
    async (path) => {
      writeFileSync(join(service.config.dataDir, 'secret.txt'), 'top-secret-sentinel');
      const res = await request(service.baseUrl).get(path);
      expect([400, 403, 404]).toContain(res.status);
      expect(res.text).not.toContain('top-secret-sentinel');
    },
  );

  describe('operator API', () => {
    it('refuses without the admin token, or with a wrong one', async () => {
      for (const auth of [undefined, 'Bearer wrong-token-wrong-token', 'Basic abc']) {
        const r = request(service.baseUrl).post('/admin/api/v1/accounts').send({ handle: 'x', email: 'x@y.z' });
        const res = auth ? await r.set('Authorization', auth) : await r;
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Invalid admin token' });
      }
    });

    it('creates an account (pending by default), patches it, and rejects a taken handle', async () => {
      const created = await service.admin('POST', '/admin/api/v1/accounts', { handle: 'acme', email: 'ops@acme.io' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ handle: 'acme', email: 'ops@acme.io', plan: 'free', status: 'pending', monthlyGenerations: null, quotaUsed: 0 });
      const patched = await service.admin('PATCH', '/admin/api/v1/accounts/acme', { status: 'approved', plan: 'pro', monthlyGenerations: 7 });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ status: 'approved', plan: 'pro', monthlyGenerations: 7 });
      const cleared = await service.admin('PATCH', '/admin/api/v1/accounts/acme', { monthlyGenerations: null });
      expect(cleared.body.monthlyGenerations).toBeNull();
      const taken = await service.admin('POST', '/admin/api/v1/accounts', { handle: 'acme', email: 'x@acme.io' });
      expect(taken.status).toBe(400);
      expect(taken.body.details.fieldErrors.handle).toEqual(['Handle already taken']);
    });

    it.each([
      [{ handle: 'Bad Handle', email: 'a@b.co' }, 'handle'],
      [{ handle: 'ok', email: 'not-an-email' }, 'email'],
      [{ handle: 'ok2', email: 'a@b.co', plan: 'platinum' }, 'plan'],
      [{ handle: 'ok3', email: 'a@b.co', status: 'vip' }, 'status'],
    ])('400 naming the field for %j', async (body, field) => {
      const res = await service.admin('POST', '/admin/api/v1/accounts', body);
      expect(res.status).toBe(400);
      expect(res.body.details.fieldErrors[field]).toBeDefined();
    });

    it('creates keys shown once with their kind, name and domains; the key is never stored in clear', async () => {
      await service.admin('POST', '/admin/api/v1/accounts', { handle: 'keys-co', email: 'k@k.io', status: 'approved' });
      const res = await service.admin('POST', '/admin/api/v1/accounts/keys-co/keys', { kind: 'publishable', name: 'site', domains: ['*.k.io'] });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        key: expect.stringMatching(/^pk_live_[0-9A-Za-z]{40}$/),
        kind: 'publishable',
        name: 'site',
        domains: ['*.k.io'],
      });
      const rows = await service.infra.db.prisma.apiKey.findMany();
      expect(JSON.stringify(rows)).not.toContain(res.body.key);
    });

    it('404 for unknown accounts and keys', async () => {
      expect((await service.admin('PATCH', '/admin/api/v1/accounts/nobody', { status: 'approved' })).status).toBe(404);
      expect((await service.admin('POST', '/admin/api/v1/accounts/nobody/keys', { kind: 'secret', name: 'x' })).status).toBe(404);
      expect((await service.admin('DELETE', '/admin/api/v1/keys/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      expect((await service.admin('DELETE', '/admin/api/v1/keys/not-a-uuid')).status).toBe(404);
    });
  });
});
