import http from 'node:http';
import request from 'supertest';
import sharp from 'sharp';
import { ErrorMessages, IMAGE_INPUT_LIMITS, ImageInputMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { pngClaiming, until, leftHalfMask, solidPhoto } from '@promptpix/testing';
import { UploadSlotMessages } from '../upload-slots';

const photo = solidPhoto;

describe.each(SHAPES)('images sent in: uploads, edits and upscales (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape);
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const upload = (bytes: Buffer, key = account.secretKey, field = 'image') =>
    request(service.baseUrl).post('/api/v1/uploads').set('Authorization', `Bearer ${key}`).attach(field, bytes, 'photo.jpg');
  const generate = (body: object, key = account.secretKey) =>
    request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${key}`).send(body);
  const fileOf = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

  it('an upload is stored once per account (201, then 200 with the same id) and its file is never served', async () => {
    const bytes = await photo('#3366cc');
    const first = await upload(bytes);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ width: 256, height: 256, id: expect.any(String), expiresAt: expect.any(String) });
    const again = await upload(bytes);
    expect([again.status, again.body.id]).toEqual([200, first.body.id]);
    const { storageKey } = await service.infra.db.prisma.upload.findUniqueOrThrow({ where: { id: first.body.id } });
    expect(await service.infra.storage.get(storageKey)).not.toBeNull();
    expect((await fetch(`${service.baseUrl}/files/${storageKey}`)).status).toBe(404);
  });

  it('publishable keys cannot upload or edit; a missing key is refused before the body is read', async () => {
    const bytes = await photo('#3366cc');
    expect((await upload(bytes, account.publishableKey)).status).toBe(403);
    const anonymous = await request(service.baseUrl).post('/api/v1/uploads').attach('image', bytes, 'photo.jpg');
    expect([anonymous.status, anonymous.body]).toEqual([401, { error: ErrorMessages.missingKey }]);
    const mine = (await upload(bytes)).body.id;
    expect((await generate({ prompt: 'x', image: mine }, account.publishableKey)).status).toBe(403);
  });

  it.each([
    ['a text file', () => Buffer.from('not an image at all'), 'image', 400, ImageInputMessages.notAnImage],
    ['a decompression bomb (a tiny PNG claiming 20000×20000)', () => pngClaiming(20_000, 20_000), 'image', 400, ImageInputMessages.tooLarge],
    ['a file under another field', () => photo('#000'), 'file', 400, 'Unexpected file field; expected image'],
    ['a file over the byte limit', () => Promise.resolve(Buffer.alloc(IMAGE_INPUT_LIMITS.maxBytes + 1)), 'image', 413, ImageInputMessages.tooManyBytes],
  ])('%s is refused naming the field', async (_case, make, field, status, message) => {
    const res = await upload(await make(), account.secretKey, field);
    expect(res.status).toBe(status);
    expect(res.body.details.fieldErrors[field]).toEqual([message]);
  });

  it('an edit keeps the image outside the mask, is one generation when asked twice, and upscales 2×', async () => {
    const image = (await upload(await photo('#3366cc'))).body.id;
    const mask = (await upload(await leftHalfMask())).body.id;
    const body = { prompt: 'a red barn', image, mask, width: 256, height: 256, format: 'png', strength: 1 };
    const started = await generate(body);
    expect(started.status).toBe(202);
    const job = await service.waitForJob(started.body.jobId, account.secretKey);
    expect(job.status).toBe('completed');
    const { data } = await sharp(await fileOf(job.imageUrl))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * 256 + x) * 3, (y * 256 + x) * 3 + 3)];
    const kept = pixel(250, 128);
    expect(Math.abs(kept[0] - 0x33) + Math.abs(kept[1] - 0x66) + Math.abs(kept[2] - 0xcc)).toBeLessThan(12);
    expect(pixel(8, 128)).not.toEqual(kept);

    const twice = await service.waitForJob((await generate(body)).body.jobId, account.secretKey);
    expect(twice.imageId).toBe(job.imageId);
    const plain = await service.waitForJob((await generate({ ...body, image: undefined, mask: undefined })).body.jobId, account.secretKey);
    expect(plain.imageId).not.toBe(job.imageId);

    const upscale = await request(service.baseUrl)
      .post(`/api/v1/image/${job.imageId}/upscale`)
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ factor: 2 });
    expect(upscale.status).toBe(202);
    const larger = await service.waitForJob(upscale.body.jobId, account.secretKey);
    expect(completedOr(larger)).toBe('completed');
    const meta = await sharp(await fileOf(larger.imageUrl)).metadata();
    expect([meta.width, meta.height]).toEqual([512, 512]);
  });

  it('an account with its uploads in flight gets a 429 for one more, while another account still uploads', async () => {
    const busy = await service.createAccount();
    const held = [await holdUpload(service.baseUrl, busy.secretKey), await holdUpload(service.baseUrl, busy.secretKey)];
    try {
      const bytes = await photo('#778899');
      const third = await until(
        () => upload(bytes, busy.secretKey),
        (res) => res.status !== 201 && res.status !== 200,
        'the account’s two slots to be taken',
      );
      expect([third.status, third.body.error, third.headers['retry-after']]).toEqual([429, UploadSlotMessages.account, '1']);
      expect((await upload(bytes)).status).toBeLessThan(300);
    } finally {
      for (const request of held) request.destroy();
    }
  });

  it('a mask of another size, a mask alone, and another account’s upload are 400s naming the field', async () => {
    const image = (await upload(await photo('#3366cc'))).body.id;
    const wide = (await upload(await leftHalfMask(384, 256))).body.id;
    const wrongSize = await generate({ prompt: 'x', image, mask: wide });
    expect(wrongSize.body.details.fieldErrors.mask).toEqual([ImageInputMessages.maskSize({ width: 384, height: 256 }, { width: 256, height: 256 })]);
    const instant = await generate({ prompt: 'x', image, mode: 'instant' });
    expect(instant.body.details.fieldErrors.image).toEqual([ImageInputMessages.instantTakesNoImage]);
    const maskAlone = await generate({ prompt: 'x', mask: wide });
    expect(maskAlone.body.details.fieldErrors.mask).toEqual([ImageInputMessages.maskWithoutImage]);
    const other = await service.createAccount();
    const theirs = await generate({ prompt: 'x', image }, other.secretKey);
    expect([theirs.status, theirs.body.details.fieldErrors.image]).toEqual([400, [ImageInputMessages.unknownInput]]);
  });

  it('an upscale of another account’s image is a 404, and a factor other than 2 or 4 a 400 naming it', async () => {
    const made = await service.waitForJob((await generate({ prompt: 'a small boat', width: 256, height: 256 })).body.jobId, account.secretKey);
    const other = await service.createAccount();
    const post = (key: string, body: object) =>
      request(service.baseUrl).post(`/api/v1/image/${made.imageId}/upscale`).set('Authorization', `Bearer ${key}`).send(body);
    expect((await post(other.secretKey, { factor: 2 })).body).toEqual({ error: ErrorMessages.imageNotFound });
    expect((await post(account.secretKey, { factor: 3 })).body.details.fieldErrors.factor).toEqual(['Expected 2 or 4']);
  });
});

/** Starts an upload whose body never finishes arriving: it holds one of the account's upload slots until destroyed. */
function holdUpload(baseUrl: string, key: string): Promise<http.ClientRequest> {
  return new Promise((resolve) => {
    const req = http.request(new URL('/api/v1/uploads', baseUrl), {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': '10000000' },
    });
    req.on('error', () => undefined);
    req.write('--x\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n', () => resolve(req));
  });
}

const completedOr = (job: { status: string; error?: string }) => (job.status === 'completed' ? 'completed' : `completed (was ${job.status}: ${job.error})`);
