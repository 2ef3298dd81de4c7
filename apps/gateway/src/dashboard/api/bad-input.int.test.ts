/**
 * Bad input on the signed-in dashboard API and the operator API, which share their schemas:
 * every string a caller sends, including NUL characters PostgreSQL cannot store and dates or
 * cursors outside its range, is a 400 naming the field or a 404, never a 500.
 */
import fc from 'fast-check';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

const NUL = 'a\u0000b';

describe('dashboard and operator API: bad input never yields a 500', () => {
  let service: TestService;
  let account: TestAccount;
  let me: DashboardTestSession;
  let styleId: string;
  let characterId: string;

  beforeAll(async () => {
    service = await startTestService('embedded', {}, { worker: false });
    account = await service.createAccount({ plan: 'pro' });
    me = await dashboardSessionFor(service, account.handle);
    styleId = (await me.post('/dashboard/api/styles', { name: 'mine' })).body.id;
    characterId = (await me.post('/dashboard/api/characters', { name: 'Mika', specSheet: 'a small red fox' })).body.id;
  });
  afterAll(() => service.stop());

  const bodies: Array<[method: 'post' | 'patch', path: () => string, body: Record<string, unknown>, field: string]> = [
    ['post', () => '/dashboard/api/keys', { kind: 'publishable', name: NUL }, 'name'],
    ['post', () => '/dashboard/api/styles', { name: NUL }, 'name'],
    ['post', () => '/dashboard/api/styles', { name: 's', description: NUL }, 'description'],
    ['post', () => '/dashboard/api/styles', { name: 's', tags: [NUL] }, 'tags'],
    ['post', () => '/dashboard/api/styles', { name: 's', promptTemplate: `{prompt} ${NUL}` }, 'promptTemplate'],
    ['patch', () => `/dashboard/api/styles/${styleId}`, { description: NUL }, 'description'],
    ['post', () => '/dashboard/api/characters', { name: NUL, specSheet: 'x' }, 'name'],
    ['post', () => '/dashboard/api/characters', { name: 'c', specSheet: NUL }, 'specSheet'],
    ['post', () => '/dashboard/api/characters', { name: 'c', specSheet: 'x', behavior: 'lock', lockedStyle: NUL }, 'lockedStyle'],
    ['patch', () => `/dashboard/api/characters/${characterId}`, { description: NUL }, 'description'],
  ];

  it.each(bodies)('dashboard %s %s with NUL in %j is a 400 naming the field', async (method, path, body, field) => {
    const res = await me[method](path(), body);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it.each([
    ['POST', () => `/admin/api/v1/accounts/${account.handle}/keys`, { kind: 'secret', name: NUL }, 'name'],
    ['POST', () => `/admin/api/v1/accounts/${account.handle}/styles`, { name: 'x', tags: ['ok', NUL] }, 'tags'],
    ['POST', () => `/admin/api/v1/accounts/${account.handle}/characters`, { name: 'c', specSheet: NUL }, 'specSheet'],
  ] as const)('operator %s %s with NUL is a 400 naming %s', async (method, path, body, field) => {
    const res = await service.admin(method, path(), body);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it.each([
    ['q=a%00b', 'q'],
    ['style=%00', 'style'],
    ['from=0000-01-01', 'from'],
    [`cursor=${Buffer.from('999999999999999.0b7e3c9a-4f1d-4c2e-9a55-2f7d8e6b1c34').toString('base64url')}`, 'cursor'],
  ])('image list query %s is a 400 naming %s', async (query, field) => {
    const res = await me.get(`/dashboard/api/images?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it.each([
    ['GET', '/admin/api/v1/accounts/a%00b', 404],
    ['GET', '/admin/api/v1/accounts/a%00b/webhook-secret', 404],
    ['GET', '/admin/api/v1/accounts/HANDLE/analytics/export?from=0000-01-01', 400],
    ['GET', '/admin/api/v1/accounts/HANDLE/analytics/export?to=%2B010000-01-01T00:00:00Z', 400],
    ['POST', '/admin/api/v1/queue/failed/a%00b/retry', 404],
    ['POST', '/admin/api/v1/failed-jobs/a%00b/retry', 400],
  ])('operator %s %s → %d', async (method, path, status) => {
    const res = await service.admin(method, path.replace('HANDLE', account.handle));
    expect(res.status).toBe(status);
  });

  it.each(['a%00b', 'a.b', 'x'.repeat(101)])('dashboard retry of failed job %s is a 400 naming jobId', async (jobId) => {
    const res = await me.post(`/dashboard/api/failed-jobs/${jobId}/retry`);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors.jobId).toBeDefined();
  });

  it('random strings in every field of a style, a key and a character', async () => {
    const anyText = fc.string({ maxLength: 40, unit: 'binary' });
    await fc.assert(
      fc.asyncProperty(anyText, anyText, fc.array(anyText, { maxLength: 3 }), async (name, description, tags) => {
        for (const [path, body] of [
          ['/dashboard/api/styles', { name, description, tags }],
          ['/dashboard/api/keys', { kind: 'publishable', name, domains: tags }],
          ['/dashboard/api/characters', { name, description, specSheet: description || 'x' }],
        ] as const) {
          const res = await me.post(path, body);
          expect([201, 400]).toContain(res.status);
        }
        const list = await me.get(`/dashboard/api/images?q=${encodeURIComponent(name)}&style=${encodeURIComponent(description || 'x')}`);
        expect([200, 400]).toContain(list.status);
      }),
      { numRuns: 40 },
    );
  });
});
