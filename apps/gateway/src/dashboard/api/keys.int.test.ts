import request from 'supertest';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/src/test-service';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

describe('dashboard keys (embedded)', () => {
  let service: TestService;
  let account: TestAccount;
  let me: DashboardTestSession;
  let them: DashboardTestSession;

  beforeAll(async () => {
    service = await startTestService('embedded');
    account = await service.createAccount();
    me = await dashboardSessionFor(service, account.handle);
    them = await dashboardSessionFor(service, (await service.createAccount()).handle);
  });
  afterAll(() => service.stop());

  const styles = (key: string) => request(service.baseUrl).get('/api/v1/styles').set('Authorization', `Bearer ${key}`);

  it('lists the live keys with their prefix and when they were last used (recorded by authentication)', async () => {
    const before = await me.get('/dashboard/api/keys');
    expect(before.status).toBe(200);
    expect(before.body.keys).toHaveLength(2);
    const secret = before.body.keys.find((k: { id: string }) => k.id === account.secretKeyId);
    expect(secret).toEqual({ id: account.secretKeyId, kind: 'secret', name: 'server', prefix: expect.any(String), domains: [], createdAt: expect.any(String), lastUsedAt: null });
    expect(account.secretKey.startsWith(secret.prefix)).toBe(true);
    expect(JSON.stringify(before.body)).not.toContain(account.secretKey);

    expect((await styles(account.secretKey)).status).toBe(200);
    let lastUsedAt: string | null = null;
    for (let i = 0; i < 100 && !lastUsedAt; i++) {
      await new Promise((r) => setTimeout(r, 20));
      lastUsedAt = (await me.get('/dashboard/api/keys')).body.keys.find((k: { id: string }) => k.id === account.secretKeyId).lastUsedAt;
    }
    expect(Date.now() - Date.parse(lastUsedAt!)).toBeLessThan(60_000);
    // At most one write a minute per key: a second request does not move it.
    expect((await styles(account.secretKey)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect((await me.get('/dashboard/api/keys')).body.keys.find((k: { id: string }) => k.id === account.secretKeyId).lastUsedAt).toBe(lastUsedAt);
  });

  it('creates a key, shown in clear once, that works at once; revoking it stops it at once', async () => {
    const created = await me.post('/dashboard/api/keys', { kind: 'publishable', name: 'blog', domains: ['blog.example.com'] });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatchObject({ kind: 'publishable', name: 'blog', domains: ['blog.example.com'], lastUsedAt: null });
    expect(created.body.secret.startsWith(created.body.key.prefix)).toBe(true);
    expect((await styles(created.body.secret).set('Origin', 'https://blog.example.com')).status).toBe(200);
    expect((await me.get('/dashboard/api/keys')).body.keys.map((k: { id: string }) => k.id)).toContain(created.body.key.id);

    expect((await me.delete(`/dashboard/api/keys/${created.body.key.id}`)).status).toBe(204);
    expect((await styles(created.body.secret).set('Origin', 'https://blog.example.com')).status).toBe(401);
    expect((await me.get('/dashboard/api/keys')).body.keys.map((k: { id: string }) => k.id)).not.toContain(created.body.key.id);
  });

  it.each([
    [{ kind: 'root', name: 'x' }, 'kind'],
    [{ kind: 'secret', name: '' }, 'name'],
    [{ kind: 'publishable', name: 'x', domains: ['not a domain!'] }, 'domains'],
  ])('a bad key body is a 400 naming the field (%j)', async (body, field) => {
    const res = await me.post('/dashboard/api/keys', body);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.details.fieldErrors)[0]).toMatch(new RegExp(`^${field}`));
  });

  it("another account's key, an unknown or a malformed id is a 404, and the key keeps working", async () => {
    for (const id of [account.secretKeyId, '00000000-0000-4000-8000-000000000000', 'nope']) {
      expect((await them.delete(`/dashboard/api/keys/${id}`)).status).toBe(404);
    }
    expect((await styles(account.secretKey)).status).toBe(200);
    expect((await them.get('/dashboard/api/keys')).body.keys.map((k: { id: string }) => k.id)).not.toContain(account.secretKeyId);
  });

  it('refuses a change without the CSRF token', async () => {
    const res = await request(service.baseUrl).post('/dashboard/api/keys').set('Cookie', me.cookie).send({ kind: 'secret', name: 'x' });
    expect(res.status).toBe(403);
  });
});
