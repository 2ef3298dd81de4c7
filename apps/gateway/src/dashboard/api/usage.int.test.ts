import request from 'supertest';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

describe('dashboard usage (embedded)', () => {
  let service: TestService;
  let account: TestAccount;
  let me: DashboardTestSession;

  beforeAll(async () => {
    service = await startTestService('embedded');
    account = await service.createAccount({ plan: 'hobby' });
    me = await dashboardSessionFor(service, account.handle);
  });
  afterAll(() => service.stop());

  const generate = async (prompt: string) => {
    const res = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt, width: 256, height: 256 });
    return { ...(await service.waitForJob(res.body.jobId, account.secretKey)), quotaUsed: res.headers['x-quota-used'] };
  };

  it('shows plan, quota as the public headers read it, rate limit and zero-filled days; the CSV has the same counts', async () => {
    const first = await generate('usage one');
    await generate('usage two');
    const hit = await generate('usage one'); // a cache hit: no quota
    const accountId = (await service.infra.accounts.findByHandle(account.handle))!.id;
    await service.storedEvents({ eventType: 'generate', accountId }, 2);
    await service.storedEvents({ eventType: 'cache_hit', imageId: first.imageId });

    const res = await me.get('/dashboard/api/usage?days=7');
    expect(res.status).toBe(200);
    expect(res.body.plan).toBe('hobby');
    expect(res.body.quota).toEqual({ used: 2, limit: 1000, resetAt: expect.any(String) });
    expect(String(res.body.quota.used)).toBe(hit.quotaUsed);
    expect(res.body.rateLimit).toEqual({ requestsPerMinute: 60 });
    expect(res.body.daily).toHaveLength(7);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.daily[6]).toMatchObject({ date: today, generations: 2, cacheHits: 1 });
    expect(res.body.daily.slice(0, 6).every((d: { generations: number; cacheHits: number }) => d.generations === 0 && d.cacheHits === 0)).toBe(true);
    expect(res.body.daily.map((d: { date: string }) => d.date)).toEqual([...res.body.daily.map((d: { date: string }) => d.date)].sort());
    expect((await me.get('/dashboard/api/usage')).body.daily).toHaveLength(30);

    const csv = await me.get('/dashboard/api/usage.csv?days=7');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="usage-${account.handle}-${res.body.daily[0].date}-${today}.csv"`);
    const lines = csv.text.trimEnd().split('\n');
    expect(lines[0]).toBe('date,generations,cache_hits,impressions,clicks');
    expect(lines).toHaveLength(8);
    expect(lines[7]).toBe(`${today},2,1,0,0`);
    // As many generations as images in the list.
    const listed = (await me.get('/dashboard/api/images')).body.images.length;
    expect(Number(lines[7].split(',')[1])).toBe(listed);
  });

  it.each(['days=0', 'days=367', 'days=x'])('a bad %s is a 400 naming days', async (query) => {
    for (const path of ['/dashboard/api/usage', '/dashboard/api/usage.csv']) {
      const res = await me.get(`${path}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.details.fieldErrors.days).toBeDefined();
    }
  });

  it('each account sees only its own usage', async () => {
    const other = await dashboardSessionFor(service, (await service.createAccount()).handle);
    const res = await other.get('/dashboard/api/usage?days=1');
    expect(res.body.daily).toEqual([{ date: new Date().toISOString().slice(0, 10), generations: 0, cacheHits: 0, impressions: 0, clicks: 0 }]);
    expect(res.body.quota.used).toBe(0);
  });
});
