import request from 'supertest';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
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
    expect(secret).toEqual({
      id: account.secretKeyId,
      kind: 'secret',
      name: 'server',
      prefix: expect.any(String),
      domains: [],
      createdAt: expect.any(String),
      lastUsedAt: null,
    });
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

  it("shows a publishable key's budgets, signing secret and fresh generations per day; sets them; rotates the key in one action", async () => {
    const site = await service.createAccount({ plan: 'business' });
    const owner = await dashboardSessionFor(service, site.handle);
    const limits = await owner.get(`/dashboard/api/keys/${site.publishableKeyId}/limits`);
    expect(limits.status).toBe(200);
    expect(limits.body).toMatchObject({
      id: site.publishableKeyId,
      budgetKeyPerDay: null,
      defaults: { budgetClientPerHour: 30, budgetClientPerDay: 100, budgetKeyPerHour: 100, budgetKeyPerDay: 300 },
      signedPrompts: false,
      budgetHitAt: null,
    });
    expect(limits.body.signingSecret).toMatch(/^pks_/);
    expect(limits.body.freshByDay).toHaveLength(7);
    expect(limits.body.freshByDay[6]).toEqual({ date: new Date().toISOString().slice(0, 10), count: 0 });

    // Two fresh generations through the page's key count for today; a cache hit does not.
    const resolve = (prompt: string) =>
      request(service.baseUrl)
        .post('/api/v1/embed/resolve')
        .set('Authorization', `Bearer ${site.publishableKey}`)
        .send({ elements: [{ id: 'a', prompt, width: 256, height: 256 }] });
    const first = await resolve('a counted fox');
    expect(first.body.results[0].status).toBe('generating');
    await service.waitForJob(first.body.results[0].jobId, site.publishableKey);
    expect((await resolve('a counted fox')).body.results[0].status).toBe('ready');
    expect((await resolve('a second counted fox')).body.results[0].status).toBe('generating');

    // A budget of 2 a day is spent now: the next new prompt fails, and the owner sees when.
    const patched = await owner.patch(`/dashboard/api/keys/${site.publishableKeyId}/limits`, { budgetKeyPerDay: 2, signedPrompts: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ budgetKeyPerDay: 2, signedPrompts: true });
    expect(patched.body.freshByDay[6].count).toBe(2);
    await owner.patch(`/dashboard/api/keys/${site.publishableKeyId}/limits`, { signedPrompts: false });
    const refused = await resolve('a third fox, over budget');
    expect(refused.body.results[0]).toEqual({ id: 'a', status: 'failed', error: expect.stringContaining('daily, per key') });
    let hit: string | null = null;
    for (let i = 0; i < 100 && !hit; i++) {
      hit = (await owner.get(`/dashboard/api/keys/${site.publishableKeyId}/limits`)).body.budgetHitAt;
      if (!hit) await new Promise((r) => setTimeout(r, 20));
    }
    expect(Date.now() - Date.parse(hit!)).toBeLessThan(60_000);

    expect((await owner.patch(`/dashboard/api/keys/${site.publishableKeyId}/limits`, { budgetClientPerHour: 1.5 })).body.details.fieldErrors).toHaveProperty(
      'budgetClientPerHour',
    );
    // Secret keys have no budgets; another account's key is not there at all.
    expect((await owner.get(`/dashboard/api/keys/${site.secretKeyId}/limits`)).status).toBe(404);
    expect((await them.patch(`/dashboard/api/keys/${site.publishableKeyId}/limits`, { budgetKeyPerDay: 1000 })).status).toBe(404);
    expect((await them.post(`/dashboard/api/keys/${site.publishableKeyId}/rotate`)).status).toBe(404);

    const rotated = await owner.post(`/dashboard/api/keys/${site.publishableKeyId}/rotate`);
    expect(rotated.status).toBe(201);
    expect(rotated.body.key).toMatchObject({ kind: 'publishable', name: 'site' });
    expect(rotated.body.secret.startsWith(rotated.body.key.prefix)).toBe(true);
    expect((await styles(site.publishableKey)).status).toBe(401);
    expect((await styles(rotated.body.secret)).status).toBe(200);
    const carried = await owner.get(`/dashboard/api/keys/${rotated.body.key.id}/limits`);
    expect(carried.body).toMatchObject({ budgetKeyPerDay: 2, signingSecret: limits.body.signingSecret });
    const live = (await owner.get('/dashboard/api/keys')).body.keys.map((k: { id: string }) => k.id);
    expect(live.sort()).toEqual([rotated.body.key.id, site.secretKeyId].sort());
  });
});
