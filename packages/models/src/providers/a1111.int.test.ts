import sharp from 'sharp';
import { TransientModelError, type ModelProgress, type ModelRequest } from '@promptpix/core';
import { fakeImageColour, startFakeA1111, times, type FakeA1111Server } from '@promptpix/testing/fake-providers';
import { a1111Size, createA1111Model, type A1111ModelConfig } from './a1111';
import { PermanentModelError } from './errors';

const request: ModelRequest = { prompt: 'a misty forest at dawn', strength: 0.5, seed: 1234, width: 1920, height: 1080 };

let fake: FakeA1111Server;
beforeAll(async () => {
  fake = await startFakeA1111({ username: 'pix', password: 's3cret' });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.setBehaviour({});
  fake.requests.length = 0;
  fake.received.length = 0;
});

const model = (overrides: Partial<A1111ModelConfig> = {}) =>
  createA1111Model({ baseUrl: fake.url, username: 'pix', password: 's3cret', timeoutMs: 5000, retry: { baseDelayMs: 10, maxDelayMs: 40 }, ...overrides });

async function firstPixel(data: Buffer) {
  const px = await sharp(data).raw().toBuffer();
  return { r: px[0], g: px[1], b: px[2] };
}

describe('a1111 adapter', () => {
  it('posts txt2img with basic auth, settings and the template-applied prompt, and decodes images[0]', async () => {
    const image = await model({ steps: 30, samplerName: 'DPM++ 2M', cfgScale: 6.5, negativePrompt: 'blurry, text', checkpoint: 'sdxl_base_1.0' }).generate({
      ...request,
      promptTemplate: 'cinematic film still of {prompt}, film grain',
    });

    const sent = 'cinematic film still of a misty forest at dawn, film grain';
    expect([image.width, image.height]).toEqual([1024, 576]);
    expect((await sharp(image.data).metadata()).format).toBe('png');
    expect(await firstPixel(image.data)).toEqual(fakeImageColour(sent));

    const [req] = fake.requests;
    expect(`${req.method} ${req.path}`).toBe('POST /sdapi/v1/txt2img');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('pix:s3cret').toString('base64')}`);
    expect(req.json).toEqual({
      prompt: sent,
      negative_prompt: 'blurry, text',
      width: 1024,
      height: 576,
      seed: 1234,
      steps: 30,
      sampler_name: 'DPM++ 2M',
      cfg_scale: 6.5,
      override_settings: { sd_model_checkpoint: 'sdxl_base_1.0' },
    });
  });

  it.each([
    [undefined, 'no people', 'no people'],
    ['blurry, text', 'no people', 'blurry, text, no people'],
    ['blurry, text', undefined, 'blurry, text'],
  ])("joins the deployment's negative prompt %j and the caller's %j: %j", async (configured, requested, sent) => {
    await model({ negativePrompt: configured }).generate({ ...request, negativePrompt: requested });
    expect(fake.requests.at(-1)!.json).toMatchObject({ negative_prompt: sent, seed: 1234 });
  });

  it.each([
    [1024, 1024, 1024, { width: 1024, height: 1024 }],
    [1920, 1080, 1024, { width: 1024, height: 576 }],
    [500, 333, 1024, { width: 504, height: 336 }],
    [2048, 512, 768, { width: 768, height: 192 }],
    [4000, 100, 1024, { width: 1024, height: 64 }],
  ])('sizes %ix%i (max side %i) as %j', (w, h, maxSide, size) => {
    expect(a1111Size(w, h, maxSide)).toEqual(size);
  });

  it('uses img2img from the first reference image', async () => {
    const reference = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#204080' } })
      .png()
      .toBuffer();
    const other = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const image = await model({ denoisingStrength: 0.45 }).generateWithReferences({ ...request, width: 512, height: 768 }, [reference, other]);

    expect([image.width, image.height]).toEqual([512, 768]);
    const [req] = fake.requests;
    expect(req.path).toBe('/sdapi/v1/img2img');
    expect(req.json).toMatchObject({ prompt: request.prompt, width: 512, height: 768, seed: 1234, steps: 25, denoising_strength: 0.45 });
    expect(req.json.init_images).toEqual([reference.toString('base64')]);
  });

  it('retries the WebUI exception shape on 5xx and 429, then succeeds', async () => {
    fake.setBehaviour({
      failures: [
        { status: 500, message: 'CUDA out of memory.' },
        { status: 429, retryAfter: 0 },
      ],
    });
    const image = await model().generate(request);
    expect(image.width).toBe(1024);
    expect(fake.requests).toHaveLength(3);
  });

  it('turns repeated 5xx and dropped connections into a TransientModelError with the WebUI message', async () => {
    fake.setBehaviour({ failures: [{ network: true }, ...times(2, { status: 500, message: 'CUDA out of memory.' })] });
    await expect(model().generate(request)).rejects.toThrow(new TransientModelError('a1111: HTTP 500: RuntimeError: CUDA out of memory.'));
    expect(fake.requests).toHaveLength(3);
  });

  it('fails at once on a 4xx with the detail', async () => {
    fake.setBehaviour({ failures: [{ status: 400, message: 'Sampler not found' }] });
    await expect(model().generate(request)).rejects.toThrow(new PermanentModelError('a1111: HTTP 400: Sampler not found'));
    fake.setBehaviour({ failures: [{ status: 422, message: 'field required' }] });
    await expect(model().generate(request)).rejects.toThrow(new PermanentModelError('a1111: HTTP 422: body: field required'));
    await expect(model({ password: 'wrong' }).generate(request)).rejects.toThrow(new PermanentModelError('a1111: HTTP 401: Incorrect username or password'));
    expect(fake.requests).toHaveLength(3);
  });

  it('times out a slow server', async () => {
    fake.setBehaviour({ delayMs: 2000 });
    const failure = model({ timeoutMs: 300 }).generate(request);
    await expect(failure).rejects.toBeInstanceOf(TransientModelError);
    await expect(failure).rejects.toThrow('a1111: no result within 300 ms');
  });

  it("rejects with the caller's abort reason", async () => {
    fake.setBehaviour({ delayMs: Infinity });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 100);
    await expect(model().generate(request, controller.signal)).rejects.toThrow('stop');
  });

  it('refuses half-set credentials', () => {
    expect(() => createA1111Model({ baseUrl: fake.url, username: 'pix' })).toThrow('a1111: set both username and password, or neither');
  });

  it("polls the WebUI's progress while txt2img runs and reports it, and stops polling after", async () => {
    fake.setBehaviour({ stepMs: 30 });
    const progress: ModelProgress[] = [];
    await model({ steps: 10, progressIntervalMs: 20 }).generate({ ...request, onProgress: (p) => progress.push(p) });
    const polls = fake.requests.filter((r) => r.path.startsWith('/sdapi/v1/progress'));
    expect(polls.length).toBeGreaterThan(1);
    expect(polls[0].headers.authorization).toBe(`Basic ${Buffer.from('pix:s3cret').toString('base64')}`);
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(p).toEqual({ fraction: expect.any(Number), message: expect.stringMatching(/^step \d+\/10, about \d+ s left$/) });
    const fractions = progress.map((p) => p.fraction!);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    const after = fake.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 100)); // a window in which a poller that leaked would ask again
    expect(fake.requests.length).toBe(after);
  });

  it('does not poll progress for a caller that does not listen', async () => {
    fake.setBehaviour({ stepMs: 10 });
    await model({ progressIntervalMs: 5 }).generate(request);
    expect(fake.requests.map((r) => r.path)).toEqual(['/sdapi/v1/txt2img']);
  });
});

describe('a1111 edits and upscaling', () => {
  const SIZE = 64;
  const edit: ModelRequest = { prompt: 'a red door', strength: 0.8, seed: 5, width: SIZE, height: SIZE };
  const input = () =>
    sharp({ create: { width: SIZE, height: SIZE, channels: 3, background: '#204080' } })
      .png()
      .toBuffer();
  /** OpenAI's convention: the left half opaque (kept), the right half transparent (repainted), one column half-transparent. */
  const mask = () => {
    const raw = Buffer.alloc(SIZE * SIZE * 4);
    for (let i = 0; i < SIZE * SIZE; i++) raw[i * 4 + 3] = i % SIZE < SIZE / 2 ? 255 : i % SIZE === SIZE / 2 ? 64 : 0;
    return sharp(raw, { raw: { width: SIZE, height: SIZE, channels: 4 } })
      .png()
      .toBuffer();
  };
  const rgb = async (png: Buffer, x: number, y: number) => {
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (y * info.width + x) * info.channels;
    return { r: data[at], g: data[at + 1], b: data[at + 2] };
  };

  it('says it edits one image with or without a mask, upscales, and draws no transparency', () => {
    const m = model();
    expect(m.edits).toEqual({ mask: true, maxImages: 1 });
    expect(typeof m.upscale).toBe('function');
    expect(m.transparentBackground).toBeUndefined();
  });

  it('edits without a mask through img2img: the input as init image, the strength as denoising strength', async () => {
    const image = await model().generate({ ...edit, edit: { images: [await input()] } });
    expect([image.width, image.height]).toEqual([SIZE, SIZE]);
    const [req] = fake.requests;
    expect(`${req.method} ${req.path}`).toBe('POST /sdapi/v1/img2img');
    expect(req.json).toMatchObject({ prompt: 'a red door', width: SIZE, height: SIZE, seed: 5, denoising_strength: 0.8, resize_mode: 0 });
    expect(req.json).not.toHaveProperty('mask');
    const [got] = fake.received;
    expect(got.images.map((i) => [i.width, i.height, i.format])).toEqual([[SIZE, SIZE, 'png']]);
    expect(got.mask).toBeUndefined();
    // The fake blends the prompt's colour over the init image by the denoising strength.
    const colour = fakeImageColour('a red door');
    expect(await rgb(image.data, 3, 3)).toEqual({
      r: Math.round(0x20 * 0.2 + colour.r * 0.8),
      g: Math.round(0x40 * 0.2 + colour.g * 0.8),
      b: Math.round(0x80 * 0.2 + colour.b * 0.8),
    });
  });

  it("inpaints with a mask inverted to the WebUI's convention: white repaints, black keeps", async () => {
    const image = await model({ maskBlur: 6 }).generate({ ...edit, edit: { images: [await input()], mask: await mask() } });
    const [req] = fake.requests;
    expect(req.json).toMatchObject({ denoising_strength: 0.8, mask_blur: 6, inpainting_fill: 1, inpaint_full_res: false, inpainting_mask_invert: 0 });
    const sent = fake.received[0].mask!;
    expect([sent.width, sent.height, sent.format, sent.hasAlpha]).toEqual([SIZE, SIZE, 'png', false]);
    const grey = (x: number) => sent.rgba[(5 * SIZE + x) * 4];
    expect([grey(0), grey(31), grey(32), grey(33), grey(63)]).toEqual([0, 0, 191, 255, 255]);
    expect(await rgb(image.data, 10, 10)).toEqual({ r: 0x20, g: 0x40, b: 0x80 });
    expect(await rgb(image.data, 50, 10)).toEqual(fakeImageColour('a red door'));
  });

  it('refuses an edit with references, and an unreadable mask, without calling the WebUI', async () => {
    const image = await input();
    await expect(model().generate({ ...edit, edit: { images: [image, image] } })).rejects.toThrow(
      new PermanentModelError('a1111: this model takes at most 1 image per edit, got 2'),
    );
    await expect(model().generate({ ...edit, edit: { images: [image], mask: Buffer.from('x') } })).rejects.toThrow(/a1111: the mask cannot be read/);
    expect(fake.requests).toHaveLength(0);
  });

  it.each([2, 4] as const)('upscales %i× through extra-single-image with the configured upscaler', async (factor) => {
    const image = await model({ upscaler: 'SwinIR_4x' }).upscale!({ image: await input(), width: SIZE, height: SIZE, factor, seed: 1 });
    expect([image.width, image.height]).toEqual([SIZE * factor, SIZE * factor]);
    expect(await rgb(image.data, 5, 5)).toEqual({ r: 0x20, g: 0x40, b: 0x80 });
    const [req] = fake.requests;
    expect(`${req.method} ${req.path}`).toBe('POST /sdapi/v1/extra-single-image');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('pix:s3cret').toString('base64')}`);
    expect(fake.received[0]).toMatchObject({ endpoint: 'extra-single-image', fields: { resize_mode: 0, upscaling_resize: factor, upscaler_1: 'SwinIR_4x' } });
    expect([fake.received[0].images[0].width, fake.received[0].images[0].height]).toEqual([SIZE, SIZE]);
  });

  it('upscales with R-ESRGAN 4x+ by default, and reports an upscaler the WebUI does not have', async () => {
    await model().upscale!({ image: await input(), width: SIZE, height: SIZE, factor: 2, seed: 1 });
    expect(fake.received[0].fields.upscaler_1).toBe('R-ESRGAN 4x+');
    await expect(
      model({ upscaler: 'No Such', retry: { attempts: 1 } }).upscale!({ image: await input(), width: SIZE, height: SIZE, factor: 2, seed: 1 }),
    ).rejects.toThrow('a1111: HTTP 500: AssertionError: could not find upscaler named No Such');
  });

  it('refuses an upscale past the size limit without calling the WebUI', async () => {
    await expect(model().upscale!({ image: await input(), width: 4096, height: 1024, factor: 4, seed: 1 })).rejects.toThrow(PermanentModelError);
    expect(fake.requests).toHaveLength(0);
  });
});
