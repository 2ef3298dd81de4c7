/**
 * The SDK against the real service (embedded adapters), through the global fetch. The only fake
 * is the model provider: it refuses prompts containing "refuse me" so a job can fail, and takes
 * its time over prompts containing "slowly" so a job can be watched in flight.
 */
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { ErrorMessages, IMAGE_INPUT_LIMITS, ImageInputMessages } from '@promptpix/contracts';
import { PermanentModelError } from '@promptpix/models';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import {
  AuthenticationError,
  ConnectionError,
  GenerationFailedError,
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PromptPix,
  PromptPixError,
  QuotaExceededError,
  RateLimitError,
  TimeoutError,
  type CompletedJob,
  type JobProgress,
  type JobView,
} from './index';

const SMALL = { width: 256, height: 256 } as const;

/** A flat 256×256 image of one colour, as a camera sends it (JPEG). */
const photo = (color: string) =>
  sharp({ create: { width: 256, height: 256, channels: 3, background: color } })
    .jpeg()
    .toBuffer();
/** OpenAI's mask convention: transparent on the left half (may change), opaque on the right (kept). */
const leftHalfMask = () =>
  sharp({ create: { width: 256, height: 256, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } })
    .composite([
      { input: { create: { width: 128, height: 256, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } }, left: 0, top: 0, blend: 'dest-out' },
    ])
    .png()
    .toBuffer();
/** The [r, g, b] of one pixel of a 256-wide image file. */
async function pixelOf(url: string, x: number, y: number): Promise<number[]> {
  const { data } = await sharp(Buffer.from(await (await fetch(url)).arrayBuffer()))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return [...data.subarray((y * 256 + x) * 3, (y * 256 + x) * 3 + 3)];
}
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('@promptpix/sdk against the embedded service', () => {
  let service: TestService;
  let account: TestAccount;
  let secret: PromptPix;
  let publishable: PromptPix;
  /** One finished image made in beforeAll, shared by the tests that only read it. */
  let made: CompletedJob;
  const client = (apiKey: string, fetchImpl?: typeof fetch) => new PromptPix({ baseUrl: service.baseUrl, apiKey, fetch: fetchImpl });

  beforeAll(async () => {
    service = await startTestService(
      'embedded',
      // A small upload budget, so one noisy image passes it (the images-in tests' others are a few kB).
      { MODEL_LATENCY_MS: '200', LIBRARY_DELAY_SECONDS: '0', UPLOAD_BYTES_PER_ACCOUNT: '300000' },
      {
        model: (inner) => ({
          name: inner.name,
          edits: inner.edits,
          generate: async (request, signal) => {
            if (request.prompt.includes('refuse me')) throw new PermanentModelError('HTTP 400: rejected by the safety system');
            if (request.prompt.includes('slowly')) await new Promise((r) => setTimeout(r, 2500));
            return inner.generate(request, signal);
          },
        }),
      },
    );
    account = await service.createAccount({ plan: 'business' });
    secret = client(account.secretKey);
    publishable = client(account.publishableKey);
    made = await secret.generateAndWait({ prompt: 'a lighthouse made of glass', ...SMALL });
  });
  afterAll(() => service.stop());

  describe('generations', () => {
    it('generate answers with the job and the quota; waitForImage polls it to completion', async () => {
      const started = await secret.generate({ prompt: 'a paper boat on a puddle', style: 'watercolor', ...SMALL });
      expect(started).toEqual({ jobId: expect.any(String), status: 'queued', quota: { used: 2, limit: 20_000, resetAt: expect.stringMatching(ISO) } });

      const updates: JobView[] = [];
      const begun = Date.now();
      const done = await secret.waitForImage(started.jobId, { onUpdate: (job) => updates.push(job) });
      // The first poll comes after a second (spec: poll every second or two).
      expect(Date.now() - begun).toBeGreaterThanOrEqual(950);
      expect(done).toEqual({
        jobId: started.jobId,
        status: 'completed',
        createdAt: expect.stringMatching(ISO),
        completedAt: expect.stringMatching(ISO),
        imageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        imageUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
        seed: expect.any(Number),
        revisedPrompt: 'a sailboat, watercolor',
      });
      expect(updates.at(-1)).toEqual(done);
      const file = await fetch(done.imageUrl);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/webp');
    });

    it('generate with an idempotencyKey: a retry gets the same job; the seed chosen is the one reported', async () => {
      const body = { prompt: 'a kite over dunes', seed: 31337, ...SMALL };
      const first = await secret.generate(body, { idempotencyKey: 'sdk-retry-1' });
      const retry = await secret.generate(body, { idempotencyKey: 'sdk-retry-1' });
      expect(retry.jobId).toBe(first.jobId);
      expect((await secret.waitForImage(first.jobId)).seed).toBe(31337);
      await expect(secret.generate({ ...body, prompt: 'another kite' }, { idempotencyKey: 'sdk-retry-1' })).rejects.toMatchObject({
        name: 'ConflictError',
        status: 409,
      });
    });

    it('cancel stops a job; cancelling a finished one is a ConflictError', async () => {
      const started = await secret.generate({ prompt: 'slowly: a tower being cancelled', ...SMALL });
      expect(await secret.cancel(started.jobId)).toMatchObject({ jobId: started.jobId, status: 'failed', error: 'cancelled' });
      await expect(secret.waitForImage(started.jobId)).rejects.toMatchObject({ name: 'GenerationFailedError' });
      await expect(secret.cancel(made.jobId)).rejects.toMatchObject({ name: 'ConflictError', status: 409 });
    });

    it('generate with cancelAfter: a job still running at the deadline is cancelled', async () => {
      const started = await secret.generate({ prompt: 'slowly: a sandcastle before the tide', ...SMALL }, { cancelAfter: 1 });
      const error = await rejectionOf(secret.waitForImage(started.jobId));
      expect(error).toBeInstanceOf(GenerationFailedError);
      expect(error.job).toMatchObject({ status: 'failed', error: 'cancelled' });
      const refused = await rejectionOf(secret.generate({ prompt: 'a deadline of nothing', ...SMALL }, { cancelAfter: 0 }));
      expect(refused).toBeInstanceOf(InvalidRequestError);
      expect(refused.fieldErrors).toEqual({ 'Cancel-After': [expect.any(String)] });
    });

    it('jobEvents follows a job to completion, to either key, and ends there', async () => {
      const started = await secret.generate({ prompt: 'slowly: a hot air balloon rising', ...SMALL });
      const seen: JobProgress[] = [];
      for await (const job of publishable.jobEvents(started.jobId)) seen.push(job);
      const statuses = seen.map((job) => job.status);
      expect(statuses.at(-1)).toBe('completed');
      expect(statuses).toContain('processing');
      // Never the same state twice in a row.
      expect(seen.every((job, i) => i === 0 || JSON.stringify(job) !== JSON.stringify(seen[i - 1]))).toBe(true);
      expect(seen.at(-1)).toEqual(await secret.job(started.jobId));
    });

    it('jobEvents resumes after lastEventId: a final state already seen yields nothing; an unknown job is NotFoundError', async () => {
      const resumed: JobProgress[] = [];
      for await (const job of secret.jobEvents(made.jobId, { lastEventId: 'processing' })) resumed.push(job);
      expect(resumed).toEqual([made]);
      const after: JobProgress[] = [];
      for await (const job of secret.jobEvents(made.jobId, { lastEventId: 'completed' })) after.push(job);
      expect(after).toEqual([]);
      const error = await rejectionOf(secret.jobEvents('00000000-0000-4000-8000-000000000000').next());
      expect(error).toBeInstanceOf(NotFoundError);
    });

    it('aborting jobEvents rejects the pending next() with the abort reason', async () => {
      const started = await secret.generate({ prompt: 'slowly: a glacier creeping', ...SMALL });
      const controller = new AbortController();
      const events = secret.jobEvents(started.jobId, { signal: controller.signal });
      expect(['queued', 'processing']).toContain((await events.next()).value?.status);
      const pending = rejectionOf(events.next());
      setTimeout(() => controller.abort(), 100);
      const error = await pending;
      expect(error).toBeInstanceOf(DOMException);
      expect(error.name).toBe('AbortError');
    });

    it('job shows the job as it stands, to either key', async () => {
      expect(await secret.job(made.jobId)).toEqual(made);
      expect(await publishable.job(made.jobId)).toEqual(made);
      const started = await secret.generate({ prompt: 'a snail racing a tortoise', ...SMALL });
      expect(['queued', 'processing', 'completed']).toContain((await secret.job(started.jobId)).status);
    });

    it('a failed job rejects waitForImage with GenerationFailedError carrying the job', async () => {
      const error = await rejectionOf(secret.generateAndWait({ prompt: 'please refuse me', ...SMALL }));
      expect(error).toBeInstanceOf(GenerationFailedError);
      expect(error.job).toMatchObject({ status: 'failed', error: expect.any(String) });
      expect(error.message).toBe(error.job.error);
    });

    it('waitForImage gives up after timeoutMs with a TimeoutError', async () => {
      const started = await secret.generate({ prompt: 'a slow sunrise over a lake', ...SMALL });
      const begun = Date.now();
      const error = await rejectionOf(secret.waitForImage(started.jobId, { timeoutMs: 300 }));
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ jobId: started.jobId, timeoutMs: 300 });
      expect(Date.now() - begun).toBeLessThan(1000);
    });

    it('aborting waitForImage rejects at once with an AbortError and stops polling', async () => {
      const started = await secret.generate({ prompt: 'a kite drifting slowly over a beach', ...SMALL });
      const controller = new AbortController();
      const updates: JobView[] = [];
      const waiting = rejectionOf(secret.waitForImage(started.jobId, { signal: controller.signal, onUpdate: (job) => updates.push(job) }));
      await new Promise((r) => setTimeout(r, 1200));
      const abortedAt = Date.now();
      controller.abort();
      const error = await waiting;
      expect(Date.now() - abortedAt).toBeLessThan(250);
      expect(error).toBeInstanceOf(DOMException);
      expect(error.name).toBe('AbortError');
      // One poll (after 1 s) saw the job in flight; the next would have come 1.25 s later.
      expect(updates.map((job) => job.status)).toEqual([expect.stringMatching(/^(queued|processing)$/)]);
      await new Promise((r) => setTimeout(r, 1500));
      expect(updates).toHaveLength(1);
    });

    it('instant returns the closest library image (an own image joins at once here), and NotFoundError when nothing is close', async () => {
      const result = await secret.instant({ prompt: 'a lighthouse made of glass' });
      expect(result).toEqual({
        status: 'completed',
        imageUrl: expect.stringMatching(/^http/),
        imageId: expect.any(String),
        match: 'exact',
        matchScore: 1,
        poolImageId: made.imageId,
      });
      const error = await rejectionOf(secret.instant({ prompt: 'quarterly tax spreadsheet reconciliation' }));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.status).toBe(404);
    });
  });

  describe('images', () => {
    it('image returns the redirect target of an owned image, with or without the jobId', async () => {
      expect(await secret.image(made.imageId, { jobId: made.jobId })).toBe(made.imageUrl);
      expect(await secret.image(made.imageId)).toBe(made.imageUrl);
    });

    it("image: an unknown or another account's image is NotFoundError", async () => {
      const other = client((await service.createAccount()).secretKey);
      for (const call of [() => secret.image('00000000-0000-4000-8000-000000000000'), () => other.image(made.imageId), () => secret.image('../job/x')]) {
        const error = await rejectionOf(call());
        expect(error).toBeInstanceOf(NotFoundError);
        expect(error.body).toEqual({ error: ErrorMessages.imageNotFound });
      }
    });

    it('pin, unpin and reject answer with the new flag', async () => {
      const image = await secret.generateAndWait({ prompt: 'a teapot to pin and reject', ...SMALL });
      expect(await secret.pin(image.imageId)).toEqual({ id: image.imageId, pinned: true });
      expect(await secret.unpin(image.imageId)).toEqual({ id: image.imageId, pinned: false });
      expect(await secret.reject(image.imageId)).toEqual({ id: image.imageId, rejected: true });
      expect(await rejectionOf(secret.pin('00000000-0000-4000-8000-000000000000'))).toBeInstanceOf(NotFoundError);
      expect(await rejectionOf(publishable.pin(image.imageId))).toBeInstanceOf(PermissionError);
    });

    it('renderUrl passes seed and negativePrompt: another seed is another image, the same seed the same one', async () => {
      const render = (seed: number) => fetch(secret.renderUrl({ prompt: 'a weather vane on a barn', negativePrompt: 'people', seed, ...SMALL }));
      const [first, other, again] = [await render(11), await render(12), await render(11)];
      expect([first.status, other.status, again.status]).toEqual([200, 200, 200]);
      expect(other.url).not.toBe(first.url);
      expect(again.url).toBe(first.url);
    });

    it('renderUrl carries the key and leads, through a followed 302, to the image', async () => {
      const url = secret.renderUrl({ prompt: 'a windmill in a tulip field', style: 'watercolor', ...SMALL });
      expect(new URL(url).searchParams.get('key')).toBe(account.secretKey);
      const image = await fetch(url);
      expect(image.status).toBe(200);
      expect(image.redirected).toBe(true);
      expect(image.headers.get('content-type')).toBe('image/webp');
      const redirect = await fetch(url, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe(image.url);
    });
  });

  describe('images in: upload, edit, upscale', () => {
    it('upload takes a Buffer, a Uint8Array or a Blob: the same image is the same upload', async () => {
      const bytes = await photo('#3366cc');
      const first = await secret.upload(bytes);
      expect(first).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        width: 256,
        height: 256,
        bytes: expect.any(Number),
        expiresAt: expect.stringMatching(ISO),
      });
      expect(Date.parse(first.expiresAt)).toBeGreaterThan(Date.now() + 23 * 3600_000);
      expect((await secret.upload(new Uint8Array(bytes))).id).toBe(first.id);
      expect((await secret.upload(new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), { filename: 'photo.jpg' })).id).toBe(first.id);
    });

    it('edit uploads bytes first: the image is kept outside the mask; the same edit by ids is the same image', async () => {
      const [image, mask] = [await photo('#3366cc'), await leftHalfMask()];
      const started = await secret.edit({ prompt: 'a red barn', image, mask, format: 'png', strength: 1, ...SMALL });
      expect(started).toEqual({ jobId: expect.any(String), status: 'queued', quota: expect.objectContaining({ used: expect.any(Number) }) });
      const done = await secret.waitForImage(started.jobId);
      const kept = await pixelOf(done.imageUrl, 250, 128);
      expect(Math.abs(kept[0] - 0x33) + Math.abs(kept[1] - 0x66) + Math.abs(kept[2] - 0xcc)).toBeLessThan(12);
      expect(await pixelOf(done.imageUrl, 8, 128)).not.toEqual(kept);

      const ids = { image: (await secret.upload(image)).id, mask: (await secret.upload(mask)).id };
      const again = await secret.waitForImage((await secret.edit({ prompt: 'a red barn', ...ids, format: 'png', strength: 1, ...SMALL })).jobId);
      expect(again.imageId).toBe(done.imageId);
      // One of the account's images may be the image edited too.
      const fromImage = await secret.waitForImage(
        (await secret.edit({ prompt: 'the same barn at night', image: done.imageId, strength: 0.5, ...SMALL })).jobId,
      );
      expect(fromImage.imageId).not.toBe(done.imageId);
    });

    it('upscale makes a 2× copy for one quota unit; the same upscale again is free', async () => {
      const first = await secret.upscale(made.imageId, { factor: 2 });
      expect(first).toEqual({ jobId: expect.any(String), status: 'queued', quota: expect.objectContaining({ used: expect.any(Number) }) });
      const larger = await secret.waitForImage(first.jobId);
      const meta = await sharp(Buffer.from(await (await fetch(larger.imageUrl)).arrayBuffer())).metadata();
      expect([meta.width, meta.height]).toEqual([512, 512]);
      const again = await secret.upscale(made.imageId, { factor: 2 });
      expect(again.quota?.used).toBe(first.quota?.used);
      expect((await secret.waitForImage(again.jobId)).imageId).toBe(larger.imageId);
    });

    it('errors name the field the bytes were given for; publishable keys cannot upload; an unknown image is NotFoundError', async () => {
      const notAnImage = new TextEncoder().encode('not an image at all');
      const asMask = await rejectionOf(secret.edit({ prompt: 'x', image: await photo('#000000'), mask: notAnImage }));
      expect(asMask).toBeInstanceOf(InvalidRequestError);
      expect(asMask).toMatchObject({ status: 400, fieldErrors: { mask: [ImageInputMessages.notAnImage] } });
      expect(asMask.message).toBe(`Invalid request: mask: ${ImageInputMessages.notAnImage}`);
      const asReference = await rejectionOf(secret.edit({ prompt: 'x', image: [made.imageId, notAnImage] }));
      expect(asReference.fieldErrors).toEqual({ 'image[1]': [ImageInputMessages.notAnImage] });

      const tooLarge = await rejectionOf(secret.upload(new Uint8Array(IMAGE_INPUT_LIMITS.maxBytes + 1)));
      expect(tooLarge).toBeInstanceOf(InvalidRequestError);
      expect(tooLarge).toMatchObject({ status: 413, fieldErrors: { image: [ImageInputMessages.tooManyBytes] } });

      const maskless = await rejectionOf(secret.edit({ prompt: 'x', image: await photo('#000000'), mask: await photo('#ffffff') }));
      expect(maskless.fieldErrors).toEqual({ mask: [ImageInputMessages.maskWithoutAlpha] });

      expect(await rejectionOf(publishable.upload(await photo('#000000')))).toBeInstanceOf(PermissionError);
      expect(await rejectionOf(publishable.edit({ prompt: 'x', image: made.imageId }))).toBeInstanceOf(PermissionError);
      expect(await rejectionOf(secret.upscale('00000000-0000-4000-8000-000000000000'))).toBeInstanceOf(NotFoundError);
      const factor = await rejectionOf(secret.upscale(made.imageId, { factor: 3 as 2 }));
      expect(factor.fieldErrors).toEqual({ factor: ['Expected 2 or 4'] });
    });

    it('an upload past the account’s budget is a ConflictError with its code', async () => {
      // 512×512 of noise: about 790 kB as PNG, past the 300 kB budget this service is given.
      const noise = await sharp(randomBytes(512 * 512 * 3), { raw: { width: 512, height: 512, channels: 3 } })
        .png()
        .toBuffer();
      const error = await rejectionOf(secret.upload(noise));
      expect(error).toBeInstanceOf(ConflictError);
      expect(error).toMatchObject({ status: 409, code: 'upload_budget_exceeded' });
    });
  });

  describe('lists, embed and analytics', () => {
    it('styles lists own styles first, then presets; publicStyles sends no key', async () => {
      const own = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/styles`, {
        name: 'House look',
        baseStyle: 'watercolor',
        tags: ['brand'],
      });
      expect(own.status).toBe(201);
      const styles = await secret.styles();
      expect(styles[0]).toEqual({ id: own.body.id, name: 'House look', description: null, tags: ['brand'], isPreset: false });
      expect(styles.filter((s) => s.isPreset).map((s) => s.id)).toEqual(
        expect.arrayContaining(['photorealistic', 'cinematic', 'modern-illustration', 'cartoon', 'watercolor']),
      );
      expect((await publishable.styles()).length).toBe(styles.length);

      const sent: Array<RequestInit | undefined> = [];
      const watched = client('sk_live_not-a-real-key', (input, init) => {
        sent.push(init);
        return fetch(input, init);
      });
      const presets = await watched.publicStyles();
      expect(presets.length).toBeGreaterThanOrEqual(20);
      expect(presets[0]).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        description: expect.anything(),
        tags: expect.any(Array),
        category: expect.any(String),
        tier: expect.any(String),
        previewUrl: null,
      });
      expect(sent).toHaveLength(1);
      expect(new Headers(sent[0]?.headers).has('authorization')).toBe(false);
    });

    it('health answers without a key', async () => {
      const sent: Array<RequestInit | undefined> = [];
      const watched = client('sk_live_not-a-real-key', (input, init) => {
        sent.push(init);
        return fetch(input, init);
      });
      expect(await watched.health()).toEqual({ status: 'ok', service: expect.any(String), timestamp: expect.stringMatching(ISO) });
      expect(new Headers(sent[0]?.headers).has('authorization')).toBe(false);
    });

    it('characters lists the account characters', async () => {
      const created = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/characters`, {
        name: 'Bolt',
        description: 'a small robot',
        specSheet: 'A small round robot with one antenna.',
      });
      expect(created.status).toBe(201);
      expect(await secret.characters()).toEqual([{ id: created.body.id, name: 'Bolt', description: 'a small robot', referenceCount: 0 }]);
      expect(await rejectionOf(publishable.characters())).toBeInstanceOf(PermissionError);
    });

    it('embedResolve answers one result per element, in order, with a publishable key', async () => {
      const permalink = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/permalinks`, { name: 'hero', imageIds: [made.imageId] });
      expect(permalink.status).toBe(201);
      const results = await publishable.embedResolve([
        { id: 'cached', prompt: 'a lighthouse made of glass', ...SMALL },
        { id: 'fresh', prompt: 'a heron standing in fog', ...SMALL },
        { id: 'named', shortcut: 'hero' },
        { id: 'library', prompt: 'a glass lighthouse', mode: 'instant' },
      ]);
      expect(results.map((r) => [r.id, r.status])).toEqual([
        ['cached', 'ready'],
        ['fresh', 'generating'],
        ['named', 'ready'],
        ['library', 'ready'],
      ]);
      // The same file; the id may be the account's instant copy of it (see the instant test).
      expect(results[0].imageUrl).toBe(made.imageUrl);
      expect(results[2].imageUrl).toBe(made.imageUrl);
      expect((await secret.waitForImage(results[1].jobId!)).status).toBe('completed');
    });

    it('analytics answers with the number of events accepted', async () => {
      expect(
        await publishable.analytics([
          { eventType: 'impression', imageId: made.imageId },
          { eventType: 'click', imageId: made.imageId, metadata: { slot: 'hero' } },
        ]),
      ).toEqual({ accepted: 2 });
      const stored = await service.storedEvents({ imageId: made.imageId, eventType: { in: ['impression', 'click'] } }, 2);
      expect(stored.map((e) => e.eventType).sort()).toEqual(['click', 'impression']);
    });

    it('sends the key as a Bearer header and bodies as JSON', async () => {
      const sent: Array<{ url: string; init?: RequestInit }> = [];
      const watched = client(account.secretKey, (input, init) => {
        sent.push({ url: String(input), init });
        return fetch(input, init);
      });
      await watched.analytics([{ eventType: 'impression' }]);
      await watched.job(made.jobId);
      const [post, get] = sent.map((s) => ({ ...s, headers: new Headers(s.init?.headers) }));
      expect(post.headers.get('authorization')).toBe(`Bearer ${account.secretKey}`);
      expect(post.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(String(post.init?.body))).toEqual({ events: [{ eventType: 'impression' }] });
      expect(get.headers.get('authorization')).toBe(`Bearer ${account.secretKey}`);
      expect(get.headers.has('content-type')).toBe(false);
      expect(get.url).toBe(`${service.baseUrl}/api/v1/job/${made.jobId}`);
    });
  });

  describe('typed errors', () => {
    it('400: InvalidRequestError names the field', async () => {
      const error = await rejectionOf(secret.generate({ prompt: 'too narrow', width: 300 }));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error).toBeInstanceOf(PromptPixError);
      expect(error).toMatchObject({ status: 400, name: 'InvalidRequestError', fieldErrors: { width: ['Must be a multiple of 64'] } });
      expect(error.message).toBe('Invalid request: width: Must be a multiple of 64');
    });

    it('401: AuthenticationError for an unknown key', async () => {
      const error = await rejectionOf(client(`sk_live_${'x'.repeat(32)}`).job(made.jobId));
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ status: 401, message: ErrorMessages.invalidKey });
    });

    it('402: QuotaExceededError with used, limit and resetAt', async () => {
      const broke = client((await service.createAccount({ monthlyGenerations: 0 })).secretKey);
      const error = await rejectionOf(broke.generate({ prompt: 'one more please', ...SMALL }));
      expect(error).toBeInstanceOf(QuotaExceededError);
      expect(error).toMatchObject({ status: 402, used: 0, limit: 0, resetAt: expect.stringMatching(ISO), message: ErrorMessages.quotaExceeded });
    });

    it('403: PermissionError with code pending_approval for an account not yet approved', async () => {
      const pending = await service.createAccount({ status: 'pending' });
      for (const call of [() => client(pending.secretKey).generate({ prompt: 'hello' }), () => client(pending.publishableKey).styles()]) {
        const error = await rejectionOf(call());
        expect(error).toBeInstanceOf(PermissionError);
        expect(error).toMatchObject({ status: 403, code: 'pending_approval', pendingApproval: true, message: ErrorMessages.pendingApproval });
      }
    });

    it('403: PermissionError without a code for a publishable key on generate', async () => {
      const error = await rejectionOf(publishable.generate({ prompt: 'from a browser' }));
      expect(error).toBeInstanceOf(PermissionError);
      expect(error).toMatchObject({ status: 403, code: undefined, pendingApproval: false, message: ErrorMessages.publishableForbidden });
    });

    it('404: NotFoundError for an unknown job', async () => {
      const error = await rejectionOf(secret.job('00000000-0000-4000-8000-000000000000'));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ status: 404, body: { error: ErrorMessages.jobNotFound } });
    });

    it('429: RateLimitError with retryAfterMs and the rate limit headers past 30 generate calls a minute on free', async () => {
      const free = client((await service.createAccount({ plan: 'free' })).secretKey);
      for (let i = 0; i < 30; i++) await free.generate({ prompt: 'the same small pebble', ...SMALL });
      const error = await rejectionOf(free.generate({ prompt: 'the same small pebble', ...SMALL }));
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, limit: 30, remaining: 0, message: ErrorMessages.rateLimited });
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
    });

    it('no service listening: ConnectionError', async () => {
      const error = await rejectionOf(new PromptPix({ baseUrl: 'http://127.0.0.1:9', apiKey: account.secretKey }).job('x'));
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error.status).toBe(0);
    });
  });
});
