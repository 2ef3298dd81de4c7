/**
 * Images in (issue #31), at the core and worker level on both shapes: an upload sanitised and
 * stored under its account, an edit's job whose inputs reach the model fitted to the request's
 * size, the image stored under the edit's cache key; an upscale through the upload and generation
 * paths' own pieces (quota, derived places, admission, queue), by the model's upscaler. The HTTP
 * routes come on top of these.
 */
import { randomUUID } from 'node:crypto';
import { inputKeyOf, type ImageModel, type JobRecord, type ModelRequest, type QuotaAccount, type UpscaleRequest, uploadStorageKey } from '@promptpix/core';
import { startTestService, SHAPES, type TestService } from '@promptpix/server/testing';
import { until } from '@promptpix/testing';
import sharp from 'sharp';

jest.setTimeout(60_000);

/** The configured model, its calls recorded, with an upscaler (nearest-neighbour: cheap and recognisable). */
function recording(seen: { generate: ModelRequest[]; upscale: UpscaleRequest[] }) {
  return (configured: ImageModel): ImageModel => ({
    name: configured.name,
    transparentBackground: true,
    edits: configured.edits,
    generate: (request, signal) => {
      seen.generate.push(request);
      return configured.generate(request, signal);
    },
    async upscale(request) {
      seen.upscale.push(request);
      const width = request.width * request.factor;
      const height = request.height * request.factor;
      return { data: await sharp(request.image).resize(width, height, { kernel: 'nearest' }).png().toBuffer(), width, height };
    },
  });
}

describe.each(SHAPES)('edits and upscales in the worker (%s)', (shape) => {
  let service: TestService;
  const seen = { generate: [] as ModelRequest[], upscale: [] as UpscaleRequest[] };
  let account: QuotaAccount;

  beforeAll(async () => {
    service = await startTestService(shape, { MODEL_LATENCY_MS: '0' }, { model: recording(seen) });
    const { handle } = await service.createAccount();
    account = await service.infra.db.prisma.account.findUniqueOrThrow({ where: { handle } });
  });
  afterAll(() => service?.stop());

  const runJob = async (request: JobRecord['request']) => {
    const job: JobRecord = { jobId: randomUUID(), accountId: account.id, status: 'queued', createdAt: new Date().toISOString(), request };
    await service.infra.jobStore.create(job, 3600);
    await service.infra.queue.enqueue({ v: 1, jobId: job.jobId }, { group: account.id });
    return finished(job.jobId);
  };
  const finished = (jobId: string) =>
    until(
      () => service.infra.jobStore.get(jobId),
      (j) => j?.status === 'completed' || j?.status === 'failed',
      `job ${jobId} to finish`,
    ) as Promise<JobRecord>;

  it('an upload is stored sanitised under its account; an edit’s inputs reach the model at the request’s size; its image is cached under the edit', async () => {
    const photo = await sharp({ create: { width: 96, height: 64, channels: 3, background: '#3366cc' } })
      .withExif({ IFD0: { Make: 'Spy Camera' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
      .jpeg()
      .toBuffer();
    const maskBytes = await sharp({ create: { width: 96, height: 64, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const { upload } = await service.infra.uploads.upload(account.id, photo);
    const { upload: mask } = await service.infra.uploads.upload(account.id, maskBytes);
    expect(upload).toMatchObject({ width: 96, height: 64 });

    const edit = await service.infra.uploads.resolveEdit(account.id, { images: [upload.id], mask: mask.id });
    expect(edit.images[0].storageKey).toBe(uploadStorageKey(account.id, edit.images[0].sha256));
    const stored = await service.infra.storage.get(edit.images[0].storageKey);
    expect((await sharp(stored!).metadata()).exif).toBeUndefined();
    expect(stored!.toString('latin1')).not.toContain('Spy Camera');

    const request = {
      prompt: 'the same scene at night',
      strength: 0.4,
      width: 256,
      height: 256,
      format: 'png' as const,
      edit,
      background: 'transparent' as const,
    };
    const job = await runJob(request);
    expect(job).toMatchObject({ status: 'completed' });
    const call = seen.generate.find((r) => r.prompt === request.prompt)!;
    expect(call).toMatchObject({ strength: 0.4, background: 'transparent', width: 256, height: 256 });
    const [image, fittedMask] = await Promise.all([sharp(call.edit!.images[0]).metadata(), sharp(call.edit!.mask!).metadata()]);
    expect([image.format, image.width, image.height]).toEqual(['png', 256, 256]);
    expect([fittedMask.format, fittedMask.width, fittedMask.height, fittedMask.hasAlpha]).toEqual(['png', 256, 256, true]);

    const row = await service.infra.db.prisma.image.findUniqueOrThrow({ where: { id: job.imageId } });
    expect(row.inputKey).toBe(inputKeyOf(request));
    const key = {
      accountId: account.id,
      normalizedPrompt: request.prompt,
      style: null,
      characterId: null,
      ageBucket: null,
      seed: null,
      negativePrompt: null,
      model: null,
    };
    expect((await service.infra.images.findCached({ ...key, inputKey: inputKeyOf(request) })).map((i) => i.id)).toEqual([row.id]);
    expect(await service.infra.images.findCached({ ...key, inputKey: null })).toEqual([]);
  });

  it('a job naming another account’s upload fails for good, and an expired upload’s missing file is a readable failure', async () => {
    const other = randomUUID();
    const input = { storageKey: uploadStorageKey(other, 'f'.repeat(64)), sha256: 'f'.repeat(64), width: 64, height: 64 };
    const foreign = await runJob({ prompt: 'steal', strength: 0.5, width: 256, height: 256, format: 'png', edit: { images: [input] } });
    expect(foreign).toMatchObject({ status: 'failed', error: 'Image generation failed: the edit names an input of another account' });
    const gone = { ...input, storageKey: uploadStorageKey(account.id, 'e'.repeat(64)) };
    const missing = await runJob({ prompt: 'gone', strength: 0.5, width: 256, height: 256, format: 'png', edit: { images: [gone] } });
    expect(missing).toMatchObject({ status: 'failed', error: 'The uploaded image is gone (uploads expire when unused): upload it again' });
    expect(seen.generate.some((r) => r.prompt === 'steal' || r.prompt === 'gone')).toBe(false);
  });

  const upscaleService = () => service.infra.upscales;

  it('an upscale: the model’s upscaler, one quota unit and one derived place, a copy owned by the account; the same upscale again is free', async () => {
    const infra = service.infra;
    const upscales = upscaleService();
    const source = await runJob({ prompt: 'a small boat', strength: 1, width: 256, height: 192, format: 'webp' });
    const row = await infra.db.prisma.image.findUniqueOrThrow({ where: { id: source.imageId } });
    const before = await infra.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
    const started = await upscales.upscale(before, row, 2);
    expect(started.outcome).toBe('generated');
    const done = await finished(started.job.jobId);
    expect(done).toMatchObject({ status: 'completed' });
    expect(seen.upscale.at(-1)).toMatchObject({ width: 256, height: 192, factor: 2, seed: Number(row.seed) });

    const copy = await infra.db.prisma.image.findUniqueOrThrow({ where: { id: done.imageId } });
    expect(copy).toMatchObject({ accountId: account.id, sourceImageId: row.id, width: 512, height: 384, format: 'webp', prompt: row.prompt });
    const file = await infra.storage.get(copy.storageKey);
    expect(await sharp(file!).metadata()).toMatchObject({ width: 512, height: 384, format: 'webp' });
    const after = await infra.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
    expect(after.quotaUsed).toBe(before.quotaUsed + 1);
    expect((await infra.db.prisma.image.findUniqueOrThrow({ where: { id: row.id } })).derivedSizes).toBe(1);

    const again = await upscales.upscale(after, row, 2);
    expect(again).toMatchObject({ outcome: 'cached', job: { status: 'completed', imageId: copy.id } });
    expect((await infra.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).quotaUsed).toBe(after.quotaUsed);
    // Another account cannot upscale it.
    await expect(upscales.upscale({ ...after, id: randomUUID() }, row, 2)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('an upscale that fails gives its quota unit and its derived place back', async () => {
    const infra = service.infra;
    const source = await runJob({ prompt: 'a file that goes away', strength: 1, width: 256, height: 256, format: 'png' });
    const row = await infra.db.prisma.image.findUniqueOrThrow({ where: { id: source.imageId } });
    await infra.storage.delete(row.storageKey);
    const before = await infra.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
    const started = await upscaleService().upscale(before, row, 4);
    expect(await finished(started.job.jobId)).toMatchObject({ status: 'failed', error: 'The image to upscale is gone' });
    await until(
      () => infra.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } }),
      (a) => a.quotaUsed === before.quotaUsed,
      'the unit to come back',
    );
    expect((await infra.db.prisma.image.findUniqueOrThrow({ where: { id: row.id } })).derivedSizes).toBe(0);
  });
});
