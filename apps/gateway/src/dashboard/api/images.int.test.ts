import request from 'supertest';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

describe('dashboard images (embedded)', () => {
  let service: TestService;
  let account: TestAccount;
  let me: DashboardTestSession;
  let other: TestAccount;
  let them: DashboardTestSession;

  beforeAll(async () => {
    service = await startTestService('embedded');
    account = await service.createAccount({ plan: 'pro' });
    other = await service.createAccount();
    me = await dashboardSessionFor(service, account.handle);
    them = await dashboardSessionFor(service, other.handle);
  });
  afterAll(() => service.stop());

  const generate = async (key: string, body: object) => {
    const res = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${key}`)
      .send({ width: 256, height: 256, ...body });
    expect(res.status).toBe(202);
    const job = await service.waitForJob(res.body.jobId, key);
    expect(job.status).toBe('completed');
    return job as { imageId: string; imageUrl: string; seed: number };
  };
  const waitForDashboardJob = async (session: DashboardTestSession, jobId: string) => {
    for (let i = 0; i < 400; i++) {
      const res = await session.get(`/dashboard/api/jobs/${jobId}`);
      expect(res.status).toBe(200);
      if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('job did not finish');
  };

  it('lists images generated through the public API newest first, with filters and keyset pages', async () => {
    const first = await generate(account.secretKey, { prompt: 'A Lighthouse at dusk' });
    const second = await generate(account.secretKey, { prompt: 'a fox in the snow', style: 'watercolor' });
    const third = await generate(account.secretKey, { prompt: 'another lighthouse, stormy' });
    await generate(other.secretKey, { prompt: 'their lighthouse' });

    const all = await me.get('/dashboard/api/images');
    expect(all.status).toBe(200);
    expect(all.body.images.map((i: { id: string }) => i.id)).toEqual([third.imageId, second.imageId, first.imageId]);
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.images[1]).toEqual({
      id: second.imageId,
      prompt: 'a fox in the snow',
      style: 'watercolor',
      width: 256,
      height: 256,
      format: 'webp',
      url: second.imageUrl,
      createdAt: expect.any(String),
      pinned: false,
      rejected: false,
      permalinks: [],
    });

    const q = await me.get('/dashboard/api/images?q=LIGHTHOUSE');
    expect(q.body.images.map((i: { id: string }) => i.id)).toEqual([third.imageId, first.imageId]);
    const styled = await me.get('/dashboard/api/images?style=watercolor');
    expect(styled.body.images.map((i: { id: string }) => i.id)).toEqual([second.imageId]);
    // Dates are UTC days, both ends included; instants (the browser's local midnights) are taken as given.
    const createdAt = (id: string) => all.body.images.find((i: { id: string }) => i.id === id).createdAt as string;
    const ids = async (query: string) => (await me.get(`/dashboard/api/images?${query}`)).body.images.map((i: { id: string }) => i.id);
    expect(await ids(`from=${createdAt(first.imageId).slice(0, 10)}&to=${createdAt(third.imageId).slice(0, 10)}`)).toEqual([
      third.imageId,
      second.imageId,
      first.imageId,
    ]);
    expect(await ids('to=2000-01-01')).toEqual([]);
    const inOffset = (iso: string, ms: number) => encodeURIComponent(new Date(Date.parse(iso) + ms).toISOString().replace('Z', '+00:00'));
    expect(await ids(`from=${inOffset(createdAt(second.imageId), 0)}&to=${inOffset(createdAt(third.imageId), 0)}`)).toEqual([second.imageId]);
    expect(await ids(`from=${inOffset(createdAt(third.imageId), 1)}`)).toEqual([]);

    const page1 = await me.get('/dashboard/api/images?limit=2');
    expect(page1.body.images.map((i: { id: string }) => i.id)).toEqual([third.imageId, second.imageId]);
    expect(page1.body.nextCursor).toEqual(expect.any(String));
    const page2 = await me.get(`/dashboard/api/images?limit=2&cursor=${encodeURIComponent(page1.body.nextCursor)}`);
    expect(page2.body.images.map((i: { id: string }) => i.id)).toEqual([first.imageId]);
    expect(page2.body.nextCursor).toBeNull();
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['cursor=not-a-cursor', 'cursor'],
    ['from=2026-13-01', 'from'],
    ['from=2026-02-02&to=2026-02-01', 'to'],
    ['from=2026-11-24T00:00:00', 'from'],
    ['to=0000-01-01', 'to'],
  ])('a bad query (%s) is a 400 naming %s', async (query, field) => {
    const res = await me.get(`/dashboard/api/images?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it("detail lists the original and its stored variants; another account's image or a bad id is a 404", async () => {
    const original = await generate(account.secretKey, { prompt: 'a variant test', seed: 42 });
    const variant = await generate(account.secretKey, { prompt: 'a variant test', seed: 42, width: 512, height: 512, format: 'png' });
    expect(variant.imageId).not.toBe(original.imageId);
    const detail = await me.get(`/dashboard/api/images/${original.imageId}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: original.imageId, seed: '42', negativePrompt: null, characterId: null });
    expect(detail.body.downloads).toEqual([
      { label: 'Original', width: 256, height: 256, format: 'webp', url: original.imageUrl },
      { label: '512×512 PNG', width: 512, height: 512, format: 'png', url: variant.imageUrl },
    ]);
    // The variant is a download of the original, not an image of its own in the list.
    const list = await me.get('/dashboard/api/images?q=variant');
    expect(list.body.images.map((i: { id: string }) => i.id)).toEqual([original.imageId]);

    for (const path of [
      `/dashboard/api/images/${original.imageId}`,
      `/dashboard/api/images/${original.imageId}/pin`,
      `/dashboard/api/images/${original.imageId}/regenerate`,
      `/dashboard/api/images/${original.imageId}/permalink`,
    ]) {
      const res = path.endsWith(original.imageId) ? await them.get(path) : await them.post(path, { name: 'stolen' });
      expect(res.status).toBe(404);
    }
    expect((await me.get('/dashboard/api/images/not-a-uuid')).status).toBe(404);
    expect((await me.post('/dashboard/api/images/not-a-uuid/reject')).status).toBe(404);
  });

  it('pin, unpin and reject act as the public API does (events recorded), and answer the detail', async () => {
    const image = await generate(account.secretKey, { prompt: 'a pin test' });
    const pinned = await me.post(`/dashboard/api/images/${image.imageId}/pin`);
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({ id: image.imageId, pinned: true, rejected: false });
    expect((await me.post(`/dashboard/api/images/${image.imageId}/unpin`)).body.pinned).toBe(false);
    const rejected = await me.post(`/dashboard/api/images/${image.imageId}/reject`);
    expect(rejected.body).toMatchObject({ pinned: false, rejected: true });
    expect(await service.storedEvents({ imageId: image.imageId, eventType: { in: ['pin', 'reject'] } }, 2)).toHaveLength(2);
  });

  it('a permalink is created with the image, then other images join it; bad names are a 400', async () => {
    const a = await generate(account.secretKey, { prompt: 'permalink image a' });
    const b = await generate(account.secretKey, { prompt: 'permalink image b' });
    const created = await me.post(`/dashboard/api/images/${a.imageId}/permalink`, { name: 'hero' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      name: 'hero',
      url: `${service.baseUrl}/api/img/${account.handle}/hero`,
      pinnedImageId: null,
      images: [{ id: a.imageId, url: a.imageUrl, prompt: 'permalink image a', createdAt: expect.any(String) }],
      snippet: `<img src="${service.baseUrl}/api/img/${account.handle}/hero" alt="hero">`,
    });
    // The public permalink serves it at once (the permalink cache was evicted).
    const served = await request(service.baseUrl).get(`/api/img/${account.handle}/hero`);
    expect(served.status).toBe(302);
    expect(served.headers.location).toBe(a.imageUrl);

    const joined = await me.post(`/dashboard/api/images/${b.imageId}/permalink`, { name: 'hero' });
    expect(joined.body.images.map((i: { id: string }) => i.id)).toEqual([a.imageId, b.imageId]);
    const again = await me.post(`/dashboard/api/images/${b.imageId}/permalink`, { name: 'hero' });
    expect(again.body.images).toHaveLength(2);
    await me.post(`/dashboard/api/images/${b.imageId}/pin`);
    expect((await request(service.baseUrl).get(`/api/img/${account.handle}/hero`)).headers.location).toBe(b.imageUrl);

    const list = await me.get('/dashboard/api/permalinks');
    expect(list.status).toBe(200);
    expect(list.body.permalinks.find((p: { name: string }) => p.name === 'hero')).toMatchObject({ pinnedImageId: b.imageId });
    expect((await me.get(`/dashboard/api/images/${a.imageId}`)).body.permalinks).toEqual(['hero']);
    expect((await them.get('/dashboard/api/permalinks')).body.permalinks).toEqual([]);

    for (const body of [{}, { name: 'has space' }, { name: 'a/b' }, { name: 'x'.repeat(201) }]) {
      const res = await me.post(`/dashboard/api/images/${a.imageId}/permalink`, body);
      expect(res.status).toBe(400);
      expect(res.body.details.fieldErrors.name).toBeDefined();
    }
  });

  it('an image pinned before it joins a permalink: the dashboard names as pinned the image the permanent URL serves', async () => {
    const a = await generate(account.secretKey, { prompt: 'two pins a' });
    const b = await generate(account.secretKey, { prompt: 'two pins b' });
    await me.post(`/dashboard/api/images/${a.imageId}/pin`);
    await me.post(`/dashboard/api/images/${a.imageId}/permalink`, { name: 'two-pins' });
    await me.post(`/dashboard/api/images/${b.imageId}/pin`);
    const saved = await me.post(`/dashboard/api/images/${b.imageId}/permalink`, { name: 'two-pins' });
    const served = await request(service.baseUrl).get(`/api/img/${account.handle}/two-pins`);
    expect(served.headers.location).toBe(b.imageUrl);
    expect(saved.body.pinnedImageId).toBe(b.imageId);
    const list = await me.get('/dashboard/api/permalinks');
    expect(list.body.permalinks.find((p: { name: string }) => p.name === 'two-pins').pinnedImageId).toBe(b.imageId);
  });

  it("regenerate makes a new take with a fresh seed, charges quota, and the new image joins the original's permalinks", async () => {
    const original = await generate(account.secretKey, { prompt: 'a regenerated castle', style: 'watercolor', negativePrompt: 'fog', format: 'png' });
    await me.post(`/dashboard/api/images/${original.imageId}/permalink`, { name: 'castle' });
    const before = (await me.get('/dashboard/api/usage')).body.quota.used;

    const accepted = await me.post(`/dashboard/api/images/${original.imageId}/regenerate`);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ jobId: expect.any(String), permalinks: ['castle'] });
    // Nobody polls the job: the worker adds the image to the permalink by itself.
    const deadline = Date.now() + 20_000;
    let images: Array<{ id: string }> = [];
    while (images.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      images = (await me.get('/dashboard/api/permalinks')).body.permalinks.find((p: { name: string }) => p.name === 'castle').images;
    }
    expect(images).toHaveLength(2);
    const job = await waitForDashboardJob(me, accepted.body.jobId);
    expect(job.status).toBe('completed');
    expect(images.map((i) => i.id)).toEqual([original.imageId, job.imageId]);
    expect(job.seed).not.toBe(original.seed);

    const detail = (await me.get(`/dashboard/api/images/${job.imageId}`)).body;
    expect(detail).toMatchObject({
      prompt: 'a regenerated castle',
      style: 'watercolor',
      negativePrompt: 'fog',
      format: 'png',
      width: 256,
      height: 256,
      permalinks: ['castle'],
    });
    expect((await me.get('/dashboard/api/usage')).body.quota.used).toBe(before + 1);
    // The job view is the public API's, and only for its own account.
    const publicJob = await request(service.baseUrl).get(`/api/v1/job/${accepted.body.jobId}`).set('Authorization', `Bearer ${account.secretKey}`);
    expect(job).toEqual(publicJob.body);
    expect((await them.get(`/dashboard/api/jobs/${accepted.body.jobId}`)).status).toBe(404);
    expect((await me.get('/dashboard/api/jobs/no such job')).status).toBe(404);
  });

  it('regenerate answers the public 402 when the quota is used up', async () => {
    const poor = await service.createAccount({ monthlyGenerations: 1 });
    const session = await dashboardSessionFor(service, poor.handle);
    const image = await generate(poor.secretKey, { prompt: 'the only one' });
    const publicRefusal = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${poor.secretKey}`).send({ prompt: 'one more' });
    expect(publicRefusal.status).toBe(402);
    const res = await session.post(`/dashboard/api/images/${image.imageId}/regenerate`);
    expect(res.status).toBe(402);
    expect(res.body).toEqual(publicRefusal.body);
  });
});
