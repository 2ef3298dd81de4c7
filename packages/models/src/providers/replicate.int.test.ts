import sharp from 'sharp';
import { TransientModelError, type ModelProgress, type ModelRequest } from '@promptpix/core';
import { fakeImageColour, startFakeReplicate, times, type FakeReplicateServer } from '@promptpix/testing/fake-providers';
import { PermanentModelError } from './errors';
import { createReplicateModel, nearestAspectRatio, type ReplicateModelConfig } from './replicate';

const TOKEN = 'r8_test_token_0123456789';
const VERSION = '5599ed30703defd1d160a25a63321b4dec97101d98b4674bcc56e41f62f35637';
const request: ModelRequest = { prompt: 'a castle on a hill', strength: 0.5, seed: 7, width: 768, height: 512 };

let fake: FakeReplicateServer;
beforeAll(async () => {
  fake = await startFakeReplicate({ token: TOKEN });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.setBehaviour({});
  fake.requests.length = 0;
  fake.received.length = 0;
});

const model = (overrides: Partial<ReplicateModelConfig> = {}) =>
  createReplicateModel({
    baseUrl: fake.url,
    apiToken: TOKEN,
    version: VERSION,
    pollIntervalMs: 20,
    timeoutMs: 5000,
    retry: { baseDelayMs: 10, maxDelayMs: 40 },
    ...overrides,
  });

const summary = () => fake.requests.map((r) => `${r.method} ${r.path.replace(/\/[0-9a-f]{26}/, '/{id}')}`);

describe('replicate adapter', () => {
  it('creates a prediction, polls it through starting → processing → succeeded, and downloads the output', async () => {
    fake.setBehaviour({ pollsUntilDone: 3 });
    const image = await model().generate({ ...request, promptTemplate: 'oil painting of {prompt}' });

    const sent = 'oil painting of a castle on a hill';
    expect([image.width, image.height]).toEqual([768, 512]);
    const px = await sharp(image.data).raw().toBuffer();
    expect({ r: px[0], g: px[1], b: px[2] }).toEqual(fakeImageColour(sent));

    expect(summary()).toEqual([
      'POST /v1/predictions',
      'GET /v1/predictions/{id}',
      'GET /v1/predictions/{id}',
      'GET /v1/predictions/{id}',
      'GET /files/{id}.png',
    ]);
    const [create, ...polls] = fake.requests;
    expect(create.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(create.headers.prefer).toBeUndefined();
    expect(create.json).toEqual({ version: VERSION, input: { prompt: sent, width: 768, height: 512, seed: 7 } });
    for (const poll of polls.slice(0, 3)) expect(poll.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('runs an official model by name with Prefer: wait, aspect_ratio and extra input, without polling', async () => {
    fake.setBehaviour({ output: 'string' });
    const image = await model({
      version: 'black-forest-labs/flux-schnell',
      sizeInput: 'aspect_ratio',
      preferWaitSeconds: 30,
      input: { output_format: 'png', num_inference_steps: 4, prompt: 'overridden' },
    }).generate({ ...request, width: 1920, height: 1080 });

    expect([image.width, image.height]).toEqual([1024, 576]);
    expect(summary()).toEqual(['POST /v1/models/black-forest-labs/flux-schnell/predictions', 'GET /files/{id}.png']);
    expect(fake.requests[0].headers.prefer).toBe('wait=30');
    expect(fake.requests[0].json).toEqual({ input: { output_format: 'png', num_inference_steps: 4, prompt: request.prompt, aspect_ratio: '16:9', seed: 7 } });
  });

  it("passes the caller's seed and negative prompt in the prediction input", async () => {
    await model().generate({ ...request, seed: 4294967295, negativePrompt: 'no people' });
    expect(fake.requests[0].json).toEqual({
      version: VERSION,
      input: { prompt: request.prompt, width: 768, height: 512, seed: 4294967295, negative_prompt: 'no people' },
    });
  });

  it('takes the version id out of owner/name:version', async () => {
    await model({ version: `stability-ai/sdxl:${VERSION}` }).generate(request);
    expect(fake.requests[0].path).toBe('/v1/predictions');
    expect(fake.requests[0].json.version).toBe(VERSION);
  });

  it.each([
    [1024, 1024, '1:1'],
    [1920, 1080, '16:9'],
    [1080, 1920, '9:16'],
    [1200, 1000, '5:4'],
  ])('maps %ix%i to aspect ratio %s', (w, h, ratio) => {
    expect(nearestAspectRatio(w, h)).toBe(ratio);
  });

  it('reports a failed prediction as permanent, with its error', async () => {
    fake.setBehaviour({ outcome: 'failed', error: 'NSFW content detected. Try running it again, or try a different prompt.' });
    const failure = model().generate(request);
    await expect(failure).rejects.toBeInstanceOf(PermanentModelError);
    await expect(failure).rejects.toThrow(
      /^replicate: prediction [0-9a-f]+ failed: NSFW content detected\. Try running it again, or try a different prompt\.$/,
    );
    expect(summary().filter((s) => s.startsWith('GET /files'))).toEqual([]);
  });

  it('retries a throttled create after Retry-After and failing polls with backoff', async () => {
    fake.setBehaviour({ failures: [{ status: 429, retryAfter: 1 }] });
    const started = Date.now();
    await model().generate(request);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(summary().slice(0, 2)).toEqual(['POST /v1/predictions', 'POST /v1/predictions']);

    fake.requests.length = 0;
    // The first poll and its first retry fail; the second retry succeeds.
    const poll = 'GET /v1/predictions/';
    fake.setBehaviour({
      pollsUntilDone: 1,
      failures: [
        { status: 502, match: poll },
        { network: true, match: poll },
      ],
    });
    await model().generate(request);
    expect(summary()).toEqual([
      'POST /v1/predictions',
      'GET /v1/predictions/{id}',
      'GET /v1/predictions/{id}',
      'GET /v1/predictions/{id}',
      'GET /files/{id}.png',
    ]);
  });

  it('turns 5xx into a TransientModelError after its attempts', async () => {
    fake.setBehaviour({ failures: times(3, { status: 500, message: 'Internal server error' }) });
    await expect(model().generate(request)).rejects.toThrow(new TransientModelError('replicate: HTTP 500: Internal server error'));
    expect(fake.requests).toHaveLength(3);
  });

  it("fails at once on 4xx with Replicate's detail", async () => {
    fake.setBehaviour({ failures: [{ status: 422, message: '- input.width: Must be less than or equal to 1440' }] });
    await expect(model().generate(request)).rejects.toThrow(new PermanentModelError('replicate: HTTP 422: - input.width: Must be less than or equal to 1440'));
    await expect(model({ apiToken: 'r8_wrong' }).generate(request)).rejects.toThrow(
      new PermanentModelError('replicate: HTTP 401: You did not pass a valid authentication token'),
    );
    expect(fake.requests).toHaveLength(2);
  });

  it('times out a prediction that never settles, and cancels it', async () => {
    fake.setBehaviour({ pollsUntilDone: 10_000 });
    const failure = model({ timeoutMs: 400 }).generate(request);
    await expect(failure).rejects.toBeInstanceOf(TransientModelError);
    await expect(failure).rejects.toThrow('replicate: no result within 400 ms');
    expect(summary().at(-1)).toBe('POST /v1/predictions/{id}/cancel');
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('times out a hanging create request', async () => {
    fake.setBehaviour({ delayMs: Infinity });
    await expect(model({ timeoutMs: 300 }).generate(request)).rejects.toThrow('replicate: no result within 300 ms');
  });

  it("rejects with the caller's abort reason and cancels the prediction", async () => {
    fake.setBehaviour({ pollsUntilDone: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('job cancelled')), 150);
    await expect(model().generate(request, controller.signal)).rejects.toThrow('job cancelled');
    expect(summary().at(-1)).toBe('POST /v1/predictions/{id}/cancel');
  });

  it("reports progress from the prediction's logs: the sampler's bar as a fraction, else the last line", async () => {
    const logLines = [
      'Using seed: 7',
      '  0%|          | 0/4 [00:00<?, ?it/s]',
      ' 50%|█████     | 2/4 [00:00<00:00, 7.50it/s]',
      '100%|██████████| 4/4 [00:01<00:00, 7.50it/s]',
    ];
    fake.setBehaviour({ pollsUntilDone: 5, logLines });
    const progress: ModelProgress[] = [];
    await model().generate({ ...request, onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([
      { message: 'Using seed: 7' },
      { fraction: 0, message: 'step 0/4' },
      { fraction: 0.5, message: 'step 2/4' },
      { fraction: 1, message: 'step 4/4' },
      { fraction: 1, message: 'step 4/4' },
    ]);
  });
});

describe('replicate edits and upscaling', () => {
  const SIZE = 64;
  const UPSCALER = 'nightmareai/real-esrgan:f121d640bd286e1fdc67f9799164c1d5be36ff74576ee11c803ae5b665dd46aa';
  const edit: ModelRequest = { prompt: 'a green gate', strength: 0.65, seed: 9, width: SIZE, height: SIZE };
  const editing = (overrides: Partial<ReplicateModelConfig> = {}) =>
    model({ editInputs: { image: 'image', mask: 'mask', strength: 'prompt_strength' }, preferWaitSeconds: 5, ...overrides });
  const input = () =>
    sharp({ create: { width: SIZE, height: SIZE, channels: 3, background: '#204080' } })
      .png()
      .toBuffer();
  /** Opaque (kept) on the left half, transparent (edited) on the right half. */
  const mask = () => {
    const raw = Buffer.alloc(SIZE * SIZE * 4);
    for (let i = 0; i < SIZE * SIZE; i++) raw[i * 4 + 3] = i % SIZE < SIZE / 2 ? 255 : 0;
    return sharp(raw, { raw: { width: SIZE, height: SIZE, channels: 4 } })
      .png()
      .toBuffer();
  };
  const rgb = async (png: Buffer, x: number, y: number) => {
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (y * info.width + x) * info.channels;
    return { r: data[at], g: data[at + 1], b: data[at + 2] };
  };

  it('edits only with mapped inputs, with a mask only when one is mapped; upscales only with an upscaler; no transparency', () => {
    expect(model().edits).toBeUndefined();
    expect(model().upscale).toBeUndefined();
    expect(model({ editInputs: { image: 'input_image' } }).edits).toEqual({ mask: false, maxImages: 1 });
    const full = editing({ upscaler: { version: UPSCALER } });
    expect(full.edits).toEqual({ mask: true, maxImages: 1 });
    expect(typeof full.upscale).toBe('function');
    expect(full.transparentBackground).toBeUndefined();
  });

  it('sends the image, the mask (white repaints) as data: URLs and the strength in the mapped fields', async () => {
    const image = await editing().generate({ ...edit, edit: { images: [await input()], mask: await mask() } });
    const [got] = fake.received;
    expect(got.model).toBe(VERSION);
    expect(got.input).toMatchObject({ prompt: 'a green gate', seed: 9, prompt_strength: 0.65, width: SIZE, height: SIZE });
    expect(got.input.image).toMatch(/^data:image\/png;base64,/);
    expect(got.input.mask).toMatch(/^data:image\/png;base64,/);
    expect([got.files.image.width, got.files.image.height]).toEqual([SIZE, SIZE]);
    const grey = (x: number) => got.files.mask.rgba[(3 * SIZE + x) * 4];
    expect([grey(0), grey(31), grey(32), grey(63)]).toEqual([0, 0, 255, 255]);
    expect(await rgb(image.data, 5, 5)).toEqual({ r: 0x20, g: 0x40, b: 0x80 });
    expect(await rgb(image.data, 60, 5)).toEqual(fakeImageColour('a green gate'));
  });

  it('sends the mask as given for a model that reads alpha, and no mask field for an edit without one', async () => {
    const sent = await mask();
    await editing({ maskFormat: 'alpha' }).generate({ ...edit, edit: { images: [await input()], mask: sent } });
    expect(fake.received[0].input.mask).toBe(`data:image/png;base64,${sent.toString('base64')}`);
    await editing().generate({ ...edit, edit: { images: [await input()] } });
    expect(Object.keys(fake.received[1].files)).toEqual(['image']);
    expect(fake.received[1].input).not.toHaveProperty('mask');
  });

  it('refuses an edit the mapping cannot carry, without creating a prediction', async () => {
    const image = await input();
    await expect(model().generate({ ...edit, edit: { images: [image] } })).rejects.toThrow(new PermanentModelError('replicate: this model cannot edit images'));
    await expect(model({ editInputs: { image: 'image' } }).generate({ ...edit, edit: { images: [image], mask: await mask() } })).rejects.toThrow(
      'replicate: this model cannot edit with a mask',
    );
    await expect(editing().generate({ ...edit, edit: { images: [image, image] } })).rejects.toThrow('at most 1 image per edit, got 2');
    expect(fake.requests).toHaveLength(0);
  });

  it.each([2, 4] as const)('upscales %i× through the upscaler model: image as a data: URL, scale, extra input', async (factor) => {
    const upscaled = await editing({ upscaler: { version: UPSCALER, input: { face_enhance: false } } }).upscale!({
      image: await input(),
      width: SIZE,
      height: SIZE,
      factor,
      seed: 1,
    });
    expect([upscaled.width, upscaled.height]).toEqual([SIZE * factor, SIZE * factor]);
    expect(await rgb(upscaled.data, 7, 7)).toEqual({ r: 0x20, g: 0x40, b: 0x80 });
    const [got] = fake.received;
    expect(got.model).toBe(UPSCALER.split(':')[1]);
    expect(got.input).toEqual({ face_enhance: false, image: expect.stringMatching(/^data:image\/png;base64,/), scale: factor });
    expect([got.files.image.width, got.files.image.height]).toEqual([SIZE, SIZE]);
  });

  it("names the upscaler's fields as configured, and fits an answer of another size", async () => {
    const upscaled = await model({ upscaler: { version: 'acme/upscaler', inputs: { scale: 'factor' } } }).upscale!({
      image: await input(),
      width: SIZE,
      height: SIZE,
      factor: 2,
      seed: 1,
    });
    const [req] = fake.requests;
    expect(req.path).toBe('/v1/models/acme/upscaler/predictions');
    expect(Object.keys(fake.received[0].input).sort()).toEqual(['factor', 'image']);
    // The fake reads `scale`, not `factor`: it answers 1024², which the adapter fits to 128².
    expect([upscaled.width, upscaled.height]).toEqual([SIZE * 2, SIZE * 2]);
  });
});
