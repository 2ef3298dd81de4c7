/**
 * The playground's images in: POST /dashboard/api/uploads, the playground's `image`/`mask`, and
 * POST /dashboard/api/images/:id/upscale. They run the public routes' own functions (receiveUpload,
 * checkedGenerationRequest, the upscale service), whose storage and queue behaviour is tested on
 * both shapes in http/routes/uploads.int.test.ts; here, the session's doors and the answers, on one.
 */
import request from 'supertest';
import sharp from 'sharp';
import { CSRF_HEADER, ErrorMessages, ImageInputMessages } from '@promptpix/contracts';
import { leftHalfMask, solidPhoto } from '@promptpix/testing';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

const photo = solidPhoto;

describe('dashboard: uploads, edits and upscales from the playground', () => {
  let service: TestService;
  let account: TestAccount;
  let me: DashboardTestSession;

  beforeAll(async () => {
    service = await startTestService('embedded');
    account = await service.createAccount();
    me = await dashboardSessionFor(service, account.handle);
  });
  afterAll(() => service.stop());

  it('stores an upload once (201, then 200 with the same id), behind the session and its CSRF token', async () => {
    const bytes = await photo('#3366cc');
    const first = await me.upload('/dashboard/api/uploads', bytes);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), width: 256, height: 256, bytes: expect.any(Number), expiresAt: expect.any(String) });
    const again = await me.upload('/dashboard/api/uploads', bytes);
    expect([again.status, again.body.id]).toEqual([200, first.body.id]);
    // Under the playground's rate limit, as its generations are.
    expect(again.headers['x-ratelimit-limit']).toBe('30');

    const noCsrf = await request(service.baseUrl)
      .post('/dashboard/api/uploads')
      .set('Cookie', me.cookie)
      .attach('image', await photo('#123456'), 'a.jpg');
    expect(noCsrf.status).toBe(403);
    const signedOut = await request(service.baseUrl).post('/dashboard/api/uploads').set(CSRF_HEADER, me.csrfToken).attach('image', bytes, 'a.jpg');
    expect(signedOut.status).toBe(401);
    expect(await service.infra.db.prisma.upload.count({ where: { account: { handle: account.handle } } })).toBe(1);
  });

  it.each([
    ['a text file', () => Promise.resolve(Buffer.from('not an image at all')), 'image', ImageInputMessages.notAnImage],
    ['a file under another field', () => photo('#000'), 'file', 'Unexpected file field; expected image'],
  ])('%s is a 400 naming the field', async (_case, make, field, message) => {
    const res = await me.upload('/dashboard/api/uploads', await make(), field);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors[field]).toEqual([message]);
  });

  it('a JSON body is not an upload (415), and is not read as one', async () => {
    const res = await me.post('/dashboard/api/uploads', { image: 'data:image/png;base64,AAAA' });
    expect(res.status).toBe(415);
  });

  it('edits through the playground: the image kept outside the mask, changed inside', async () => {
    const image = (await me.upload('/dashboard/api/uploads', await photo('#3366cc'))).body.id;
    const mask = (await me.upload('/dashboard/api/uploads', await leftHalfMask(), 'image', 'mask.png')).body.id;
    const started = await me.post('/dashboard/api/playground', { prompt: 'a red barn', image, mask, width: 256, height: 256, format: 'png' });
    expect(started.status).toBe(202);
    const job = await service.waitForJob(started.body.jobId, account.secretKey);
    expect(job.status).toBe('completed');
    const { data } = await sharp(Buffer.from(await (await fetch(job.imageUrl)).arrayBuffer()))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * 256 + x) * 3, (y * 256 + x) * 3 + 3)];
    const kept = pixel(250, 128);
    expect(Math.abs(kept[0] - 0x33) + Math.abs(kept[1] - 0x66) + Math.abs(kept[2] - 0xcc)).toBeLessThan(12);
    expect(pixel(8, 128)).not.toEqual(kept);
  });

  it('a mask of another size, a mask alone, a bad background and another account’s upload are 400s naming the field', async () => {
    const image = (await me.upload('/dashboard/api/uploads', await photo('#3366cc'))).body.id;
    const wide = (await me.upload('/dashboard/api/uploads', await leftHalfMask(384, 256))).body.id;
    const wrongSize = await me.post('/dashboard/api/playground', { prompt: 'x', image, mask: wide });
    expect([wrongSize.status, wrongSize.body.details.fieldErrors.mask]).toEqual([
      400,
      [ImageInputMessages.maskSize({ width: 384, height: 256 }, { width: 256, height: 256 })],
    ]);
    const maskAlone = await me.post('/dashboard/api/playground', { prompt: 'x', mask: wide });
    expect(maskAlone.body.details.fieldErrors.mask).toEqual([ImageInputMessages.maskWithoutImage]);
    const background = await me.post('/dashboard/api/playground', { prompt: 'x', image, background: 'checkered' });
    expect(background.body.details.fieldErrors.background).toEqual(['Expected one of auto, opaque, transparent']);

    const other = await service.createAccount();
    const theirs = await (await dashboardSessionFor(service, other.handle)).post('/dashboard/api/playground', { prompt: 'x', image });
    expect([theirs.status, theirs.body.details.fieldErrors.image]).toEqual([400, [ImageInputMessages.unknownInput]]);
    expect((await me.get('/dashboard/api/usage')).body.quota.used).toBe(1);
  });

  it('upscales one of the account’s images (a job, one quota unit); another account’s is a 404, a factor of 3 a 400', async () => {
    const made = await service.waitForJob(
      (await me.post('/dashboard/api/playground', { prompt: 'a small boat', width: 256, height: 256, format: 'png' })).body.jobId,
      account.secretKey,
    );
    const upscale = await me.post(`/dashboard/api/images/${made.imageId}/upscale`, { factor: 2 });
    expect(upscale.status).toBe(202);
    expect(upscale.body).toEqual({ jobId: expect.any(String), quota: { used: 3, limit: 100, resetAt: expect.any(String) } });
    const larger = await service.waitForJob(upscale.body.jobId, account.secretKey);
    expect(larger.status).toBe('completed');
    expect((await me.get(`/dashboard/api/images/${larger.imageId}`)).body).toMatchObject({ width: 512, height: 512 });

    const other = await dashboardSessionFor(service, (await service.createAccount()).handle);
    expect((await other.post(`/dashboard/api/images/${made.imageId}/upscale`, {})).body).toEqual({ error: ErrorMessages.imageNotFound });
    expect((await me.post('/dashboard/api/images/not-an-id/upscale', {})).status).toBe(404);
    expect((await me.post(`/dashboard/api/images/${made.imageId}/upscale`, { factor: 3 })).body.details.fieldErrors.factor).toEqual(['Expected 2 or 4']);
  });
});
