import request from 'supertest';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

describe('dashboard embed (embedded)', () => {
  let service: TestService;
  let account: TestAccount;
  let me: DashboardTestSession;

  beforeAll(async () => {
    service = await startTestService('embedded');
    account = await service.createAccount({ domains: ['site.example.com'] });
    me = await dashboardSessionFor(service, account.handle);
  });
  afterAll(() => service.stop());

  it('gives the script URL, the publishable keys (never secret ones) and the snippet', async () => {
    const res = await me.get('/dashboard/api/embed');
    expect(res.status).toBe(200);
    expect(res.body.scriptUrl).toBe(`${service.baseUrl}/service-client.js`);
    expect(res.body.publishableKeys.map((k: { id: string }) => k.id)).toEqual([account.publishableKeyId]);
    expect(res.body.publishableKeys[0]).toMatchObject({ kind: 'publishable', domains: ['site.example.com'] });
    expect(res.body.snippetTemplate).toContain(`<script src="${service.baseUrl}/service-client.js" data-key="{{KEY}}"></script>`);
    expect(res.body.snippetTemplate).toMatch(/<img data-service-prompt="[^"]+"/);
    expect((await request(service.baseUrl).get('/service-client.js')).status).toBe(200);
  });

  it('previews one element as the page script would: generating, then ready from the cache; quota counted as embed counts it', async () => {
    const first = await me.post('/dashboard/api/preview', { prompt: 'a preview of a harbour', style: 'watercolor' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'generating', jobId: expect.any(String) });
    const job = await service.waitForJob(first.body.jobId, account.secretKey);
    expect(job.status).toBe('completed');
    const dashboardJob = await me.get(`/dashboard/api/jobs/${first.body.jobId}`);
    expect(dashboardJob.body.imageId).toBe(job.imageId);

    const second = await me.post('/dashboard/api/preview', { prompt: 'a preview of a harbour', style: 'watercolor' });
    expect(second.body).toEqual({ status: 'ready', imageUrl: job.imageUrl, imageId: job.imageId });
    // The public resolver gives the same image for the same element.
    const viaPublic = await request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${account.publishableKey}`)
      .set('Origin', 'https://site.example.com')
      .send({ elements: [{ id: 'a', prompt: 'a preview of a harbour', style: 'watercolor' }] });
    expect(viaPublic.body.results[0].imageId).toBe(job.imageId);
    expect((await me.get('/dashboard/api/usage')).body.quota.used).toBe(1);

    const unknownStyle = await me.post('/dashboard/api/preview', { prompt: 'x', style: 'no-such-style' });
    expect(unknownStyle.body).toEqual({ status: 'failed', error: expect.stringMatching(/^style: /) });
  });

  it.each([
    [{}, 'prompt'],
    [{ prompt: '   ' }, 'prompt'],
    [{ prompt: 'x'.repeat(2001) }, 'prompt'],
    [{ prompt: 'x', style: '' }, 'style'],
  ])('a bad preview body is a 400 naming the field (%j)', async (body, field) => {
    const res = await me.post('/dashboard/api/preview', body);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it('a signed-out browser gets 401; another account sees only its own keys', async () => {
    expect((await request(service.baseUrl).get('/dashboard/api/embed')).status).toBe(401);
    const other = await service.createAccount();
    const them = await dashboardSessionFor(service, other.handle);
    expect((await them.get('/dashboard/api/embed')).body.publishableKeys.map((k: { id: string }) => k.id)).toEqual([other.publishableKeyId]);
  });
});
