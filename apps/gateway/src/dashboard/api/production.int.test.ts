/**
 * The dashboard on the production adapters: sessions and listings on PostgreSQL, the regenerate
 * job through Redis and BullMQ to the worker, the image on the S3-protocol server. The new take
 * joins the original's permalink in the worker, with nobody watching the job.
 */
import request from 'supertest';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

describe('dashboard on PostgreSQL, Redis and S3', () => {
  let service: TestService;
  let account: TestAccount;
  let me: DashboardTestSession;

  beforeAll(async () => {
    service = await startTestService('production');
    account = await service.createAccount({ plan: 'pro' });
    me = await dashboardSessionFor(service, account.handle);
  });
  afterAll(() => service?.stop());

  it('regenerates through the queue and the worker adds the new take to the permalink', async () => {
    const accepted = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'a paper boat on a pond', width: 256, height: 256, format: 'png' });
    const original = await service.waitForJob(accepted.body.jobId, account.secretKey);
    expect(original.status).toBe('completed');

    const listed = await me.get('/dashboard/api/images?q=paper boat');
    expect(listed.status).toBe(200);
    expect(listed.body.images.map((i: { id: string }) => i.id)).toEqual([original.imageId]);
    expect((await me.post(`/dashboard/api/images/${original.imageId}/permalink`, { name: 'boat' })).status).toBe(200);

    const regenerated = await me.post(`/dashboard/api/images/${original.imageId}/regenerate`);
    expect(regenerated.status).toBe(202);
    expect(regenerated.body.permalinks).toEqual(['boat']);
    let images: Array<{ id: string }> = [];
    for (const deadline = Date.now() + 30_000; images.length < 2 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      images = (await me.get('/dashboard/api/permalinks')).body.permalinks[0].images;
    }
    const job = (await me.get(`/dashboard/api/jobs/${regenerated.body.jobId}`)).body;
    expect(job.status).toBe('completed');
    expect(images.map((i) => i.id)).toEqual([original.imageId, job.imageId]);

    // Pinning the new take from the dashboard: the permanent URL serves it at once, from S3.
    expect((await me.post(`/dashboard/api/images/${job.imageId}/pin`)).body.pinned).toBe(true);
    const served = await request(service.baseUrl).get(`/api/img/${account.handle}/boat`);
    expect(served.status).toBe(302);
    expect(served.headers.location).toBe(job.imageUrl);
    const file = await fetch(served.headers.location);
    expect(file.headers.get('content-type')).toBe('image/png');
  });
});
