import request from 'supertest';
import sharp from 'sharp';
import { ErrorMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('GET /api/v1/image/:id (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;
  let job: { jobId: string; imageId: string; imageUrl: string };

  beforeAll(async () => {
    service = await startTestService(shape);
    account = await service.createAccount();
    const started = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'a green valley', width: 512, height: 384, format: 'png' });
    job = await service.waitForJob(started.body.jobId, account.secretKey);
  });
  afterAll(() => service.stop());

  const get = (path: string, key = account.secretKey) => request(service.baseUrl).get(path).set('Authorization', `Bearer ${key}`).redirects(0);

  it('302 to the stable file address, cacheable for a day; the file is the requested image', async () => {
    const res = await get(`/api/v1/image/${job.imageId}`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(job.imageUrl);
    expect(res.headers['cache-control']).toMatch(/max-age=86400/);
    const file = await fetch(res.headers.location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 512, 384]);
  });

  it('the jobId fast path answers the same redirect', async () => {
    const res = await get(`/api/v1/image/${job.imageId}?jobId=${job.jobId}`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(job.imageUrl);
  });

  it('a jobId that does not match the image falls back to the database', async () => {
    const res = await get(`/api/v1/image/${job.imageId}?jobId=someone-elses-job`);
    expect(res.status).toBe(302);
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-uuid', "1' OR '1'='1"])('404 Image not found for %s', async (id) => {
    const res = await get(`/api/v1/image/${encodeURIComponent(id)}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: ErrorMessages.imageNotFound });
  });

  it("404 for another account's image, also through the jobId fast path", async () => {
    const other = await service.createAccount();
    for (const path of [`/api/v1/image/${job.imageId}`, `/api/v1/image/${job.imageId}?jobId=${job.jobId}`]) {
      const res = await get(path, other.secretKey);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: ErrorMessages.imageNotFound });
    }
  });

  it('401 without a key', async () => {
    const res = await request(service.baseUrl).get(`/api/v1/image/${job.imageId}`);
    expect(res.status).toBe(401);
  });
});
