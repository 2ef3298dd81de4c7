import { startTestService, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor } from './testing';

describe('dashboard rate limit (DASHBOARD_RATE_LIMIT per signed-in account)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('embedded', { DASHBOARD_RATE_LIMIT: '3' });
  });
  afterAll(() => service.stop());

  it("answers 429 in the public API's shape past the limit, for that account only, across its browsers", async () => {
    const busy = await service.createAccount();
    const [laptop, phone] = [await dashboardSessionFor(service, busy.handle), await dashboardSessionFor(service, busy.handle)];
    const calm = await dashboardSessionFor(service, (await service.createAccount()).handle);

    expect((await laptop.get('/dashboard/api/keys')).status).toBe(200);
    expect((await phone.get('/dashboard/api/permalinks')).status).toBe(200);
    expect((await laptop.get('/dashboard/api/keys')).status).toBe(200);
    const refused = await phone.get('/dashboard/api/keys');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded', retryAfterMs: expect.any(Number) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    expect((await calm.get('/dashboard/api/keys')).status).toBe(200);
    // The session view stays reachable: the app can still show who is signed in.
    expect((await phone.get('/dashboard/api/session')).status).toBe(200);
  });
});
