import request from 'supertest';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('permalinks: GET /api/img/{handle}/{name} (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;
  let images: Array<{ imageId: string; imageUrl: string }>;

  beforeAll(async () => {
    service = await startTestService(shape);
    account = await service.createAccount({ plan: 'business', domains: ['*.shop.io'] });
    images = [];
    for (const prompt of ['first take', 'second take', 'third take']) {
      const res = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .send({ prompt, width: 256, height: 256 });
      images.push(await service.waitForJob(res.body.jobId, account.secretKey));
    }
  });
  afterAll(() => service.stop());

  const create = (name: string, imageIds: string[], handle = account.handle) =>
    service.admin('POST', `/admin/api/v1/accounts/${handle}/permalinks`, { name, imageIds });
  const open = (path: string, referer?: string) => {
    const r = request(service.baseUrl).get(path).redirects(0);
    return referer ? r.set('Referer', referer) : r;
  };

  it('the operator creates a permalink from image ids and gets its URL', async () => {
    const res = await create(
      'hero',
      images.map((i) => i.imageId),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'hero', url: `${service.baseUrl}/api/img/${account.handle}/hero`, imageIds: images.map((i) => i.imageId) });
  });

  it('rotates round robin through its images with no-cache, and records views', async () => {
    const locations = [];
    for (let i = 0; i < 6; i++) {
      const res = await open(`/api/img/${account.handle}/hero`);
      expect(res.status).toBe(302);
      expect(res.headers['cache-control']).toBe('no-cache');
      locations.push(res.headers.location);
    }
    const urls = images.map((i) => i.imageUrl);
    expect(locations).toEqual([...urls, ...urls]);
    await service.infra.events.flush();
    // Identical views stored together are one row counting them.
    const views = await service.infra.db.prisma.analyticsEvent.aggregate({ where: { eventType: 'view' }, _sum: { count: true } });
    expect(views._sum.count).toBeGreaterThanOrEqual(6);
  });

  it('serves the pinned image; unpin returns it to rotation; pinning another moves the pin', async () => {
    await create(
      'pinned',
      images.map((i) => i.imageId),
    );
    const pin = (id: string, method: 'patch' | 'delete' = 'patch') =>
      request(service.baseUrl)[method](`/api/v1/image/${id}/pin`).set('Authorization', `Bearer ${account.secretKey}`);
    await pin(images[1].imageId);
    for (let i = 0; i < 3; i++) expect((await open(`/api/img/${account.handle}/pinned`)).headers.location).toBe(images[1].imageUrl);
    await pin(images[2].imageId);
    for (let i = 0; i < 3; i++) expect((await open(`/api/img/${account.handle}/pinned`)).headers.location).toBe(images[2].imageUrl);
    await pin(images[2].imageId, 'delete');
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) seen.add((await open(`/api/img/${account.handle}/pinned`)).headers.location);
    expect(seen.size).toBe(3);
  });

  it.each([
    ['no Referer', undefined, 302],
    ['a subdomain on the list', 'https://www.shop.io/product/1', 302],
    ['the bare domain of a wildcard', 'https://shop.io/', 302],
    ['localhost', 'http://localhost:3000/page', 302],
    ['another site', 'https://evil.io/page', 403],
  ])('Referer check: %s → %d', async (_name, referer, status) => {
    const res = await open(`/api/img/${account.handle}/hero`, referer);
    expect(res.status).toBe(status);
    if (status === 403) {
      expect(res.body).toEqual({ error: 'Origin not allowed' });
      expect(res.headers.location).toBeUndefined();
    }
  });

  it.each(['/api/img/nobody/hero', '/api/img/HANDLE/unknown', '/api/img/x/..%2F..%2Fetc'])('404 for %s', async (path) => {
    const res = await open(path.replace('HANDLE', account.handle));
    expect(res.status).toBe(404);
    expect(res.body.error).toBeDefined();
  });

  it('404 when every image was rejected (empty)', async () => {
    const res = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'lonely', width: 256, height: 256 });
    const only = await service.waitForJob(res.body.jobId, account.secretKey);
    await create('lonely', [only.imageId]);
    expect((await open(`/api/img/${account.handle}/lonely`)).status).toBe(302);
    await request(service.baseUrl).patch(`/api/v1/image/${only.imageId}/reject`).set('Authorization', `Bearer ${account.secretKey}`);
    expect((await open(`/api/img/${account.handle}/lonely`)).status).toBe(404);
  });

  it('the operator API refuses images of another account, duplicate names and bad names, naming the field', async () => {
    const other = await service.createAccount();
    const foreign = await create('foreign', [images[0].imageId], other.handle);
    expect(foreign.status).toBe(400);
    expect(foreign.body.details.fieldErrors.imageIds).toBeDefined();
    const duplicate = await create('hero', [images[0].imageId]);
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.details.fieldErrors.name).toBeDefined();
    const bad = await create('has spaces', [images[0].imageId]);
    expect(bad.body.details.fieldErrors.name).toBeDefined();
  });
});
