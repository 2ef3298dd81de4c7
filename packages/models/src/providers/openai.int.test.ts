import sharp from 'sharp';
import { TransientModelError, type ModelRequest } from '@promptpix/core';
import { fakeImageColour, startFakeOpenAI, times, type FakeOpenAIServer } from '@promptpix/testing/fake-providers';
import { PermanentModelError } from './errors';
import { createOpenAIModel, nearestSize, type OpenAIModelConfig } from './openai';

const API_KEY = 'sk-test-0123456789abcdef';
const fastRetry = { attempts: 3, baseDelayMs: 10, maxDelayMs: 40 };
const request: ModelRequest = { prompt: 'a red fox in the snow', strength: 0.5, seed: 42, width: 1024, height: 1024 };

let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.setBehaviour({});
  fake.requests.length = 0;
});

const model = (overrides: Partial<OpenAIModelConfig> = {}) =>
  createOpenAIModel({ baseUrl: fake.url, apiKey: API_KEY, model: 'gpt-image-1', timeoutMs: 5000, retry: fastRetry, ...overrides });

async function firstPixel(data: Buffer) {
  const px = await sharp(data).raw().toBuffer();
  return { r: px[0], g: px[1], b: px[2] };
}

describe('openai adapter', () => {
  it('posts the documented JSON with the bearer key and the template-applied prompt, and decodes b64_json', async () => {
    const image = await model().generate({ ...request, style: 'watercolor', promptTemplate: 'watercolor painting of {prompt}, soft washes' });

    const sent = 'watercolor painting of a red fox in the snow, soft washes';
    expect(image).toMatchObject({ width: 1024, height: 1024 });
    const meta = await sharp(image.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 1024]);
    expect(await firstPixel(image.data)).toEqual(fakeImageColour(sent));

    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/images/generations');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers['content-type']).toBe('application/json');
    // gpt-image-* always answers base64 and takes no response_format.
    expect(req.json).toEqual({ model: 'gpt-image-1', prompt: sent, size: '1024x1024', n: 1 });
  });

  it('asks for b64_json and sends quality for other models; a baseUrl ending in /v1 works too', async () => {
    const image = await model({ baseUrl: `${fake.url}/v1/`, model: 'dall-e-3', quality: 'hd' }).generate(request);
    expect(image.width).toBe(1024);
    expect(fake.requests[0].json).toEqual({ model: 'dall-e-3', prompt: request.prompt, size: '1024x1024', n: 1, response_format: 'b64_json', quality: 'hd' });
  });

  it('downloads data[0].url when the server answers a URL', async () => {
    fake.setBehaviour({ output: 'url' });
    const image = await model().generate({ ...request, prompt: 'a lighthouse' });
    expect(await firstPixel(image.data)).toEqual(fakeImageColour('a lighthouse'));
    expect(fake.requests.map((r) => `${r.method} ${r.path.replace(/[\w-]+\.png$/, '*.png')}`)).toEqual(['POST /v1/images/generations', 'GET /files/*.png']);
  });

  describe('sizes', () => {
    it.each([
      [1920, 1080, '1536x1024'],
      [1024, 1024, '1024x1024'],
      [300, 200, '1536x1024'],
      [800, 1200, '1024x1536'],
      [1000, 1100, '1024x1024'],
    ])('maps %ix%i to the nearest supported size %s', (w, h, size) => {
      expect(nearestSize(w, h)).toBe(size);
    });

    it('refuses a malformed size list when created', () => {
      expect(() => model({ sizes: ['1024x1024', 'big'] })).toThrow('openai: size "big" is not WxH');
    });

    it('prefers the closer area among sizes of the same shape', () => {
      expect(nearestSize(600, 600, ['256x256', '512x512', '1024x1024'])).toBe('512x512');
    });

    it('sends the mapped size; the image comes back at that size', async () => {
      const image = await model().generate({ ...request, width: 1920, height: 1080 });
      expect(fake.requests[0].json.size).toBe('1536x1024');
      expect([image.width, image.height]).toEqual([1536, 1024]);
    });

    it('sends the exact size with arbitrarySizes', async () => {
      const open = await startFakeOpenAI({ sizes: 'any' });
      try {
        const image = await createOpenAIModel({ baseUrl: open.url, model: 'local-sd', arbitrarySizes: true, timeoutMs: 5000 }).generate({
          ...request,
          width: 640,
          height: 360,
        });
        expect(open.requests[0].json.size).toBe('640x360');
        expect(open.requests[0].headers.authorization).toBeUndefined();
        expect([image.width, image.height]).toEqual([640, 360]);
      } finally {
        await open.stop();
      }
    });
  });

  describe('retries', () => {
    it('waits for Retry-After on 429, then succeeds', async () => {
      fake.setBehaviour({ failures: [{ status: 429, retryAfter: 1 }] });
      const started = Date.now();
      const image = await model().generate(request);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(image.width).toBe(1024);
      expect(fake.requests).toHaveLength(2);
    });

    it('retries 5xx and dropped connections with backoff, then succeeds', async () => {
      fake.setBehaviour({ failures: [{ status: 503 }, { network: true }] });
      const image = await model().generate(request);
      expect(image.height).toBe(1024);
      expect(fake.requests).toHaveLength(3);
    });

    it('gives up after its attempts with a TransientModelError carrying the provider message', async () => {
      fake.setBehaviour({ failures: times(5, { status: 500 }) });
      const failure = model().generate(request);
      await expect(failure).rejects.toBeInstanceOf(TransientModelError);
      await expect(failure).rejects.toThrow('openai: HTTP 500: The server had an error while processing your request. Sorry about that!');
      expect(fake.requests).toHaveLength(3);
    });

    it('does not wait for a Retry-After beyond its deadline', async () => {
      fake.setBehaviour({ failures: [{ status: 429, retryAfter: 30 }] });
      const started = Date.now();
      await expect(model({ timeoutMs: 2000 }).generate(request)).rejects.toThrow(
        new TransientModelError('openai: HTTP 429: Rate limit reached for images per minute. Please try again in 1s.'),
      );
      expect(Date.now() - started).toBeLessThan(1000);
      expect(fake.requests).toHaveLength(1);
    });
  });

  describe('permanent failures', () => {
    it('fails at once on 400 with the provider message', async () => {
      fake.setBehaviour({ failures: [{ status: 400, message: 'Your request was rejected as a result of our safety system.' }] });
      const failure = model().generate(request);
      await expect(failure).rejects.toBeInstanceOf(PermanentModelError);
      await expect(failure).rejects.toMatchObject({ status: 400, message: 'openai: HTTP 400: Your request was rejected as a result of our safety system.' });
      expect(fake.requests).toHaveLength(1);
    });

    it('reports a wrong key (401) and an unsupported size from the server as permanent', async () => {
      await expect(model({ apiKey: 'sk-wrong-key-0000' }).generate(request)).rejects.toThrow(
        new PermanentModelError('openai: HTTP 401: Incorrect API key provided: sk-***0000.'),
      );
      await expect(model({ arbitrarySizes: true }).generate({ ...request, width: 640, height: 360 })).rejects.toThrow(
        "openai: HTTP 400: Invalid value: '640x360'. Supported values are: '1024x1024', '1536x1024', '1024x1536'.",
      );
    });
  });

  it('times out a hanging server with a TransientModelError', async () => {
    fake.setBehaviour({ delayMs: Infinity });
    const started = Date.now();
    const failure = model({ timeoutMs: 300 }).generate(request);
    await expect(failure).rejects.toBeInstanceOf(TransientModelError);
    await expect(failure).rejects.toThrow('openai: no result within 300 ms');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("rejects with the caller's abort reason", async () => {
    fake.setBehaviour({ delayMs: Infinity });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('worker shutting down')), 100);
    await expect(model().generate(request, controller.signal)).rejects.toThrow('worker shutting down');
    await expect(model().generate(request, AbortSignal.abort(new Error('already gone')))).rejects.toThrow('already gone');
    expect(fake.requests).toHaveLength(1);
  });

  it('sends reference images as image[] files to /v1/images/edits', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const jpeg = await sharp({ create: { width: 32, height: 48, channels: 3, background: '#aa0000' } })
      .jpeg()
      .toBuffer();
    const image = await model().generateWithReferences({ ...request, promptTemplate: 'cartoon of {prompt}', width: 1536, height: 1024 }, [png, jpeg]);

    expect([image.width, image.height]).toEqual([1536, 1024]);
    expect(await firstPixel(image.data)).toEqual(fakeImageColour('cartoon of a red fox in the snow'));
    const [req] = fake.requests;
    expect(req.path).toBe('/v1/images/edits');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(req.form?.fields).toEqual({ model: ['gpt-image-1'], prompt: ['cartoon of a red fox in the snow'], size: ['1536x1024'], n: ['1'] });
    expect(req.form?.files.map((f) => [f.field, f.filename, f.type])).toEqual([
      ['image[]', 'reference-1.png', 'image/png'],
      ['image[]', 'reference-2.jpg', 'image/jpeg'],
    ]);
    expect(req.form?.files[0].data.equals(png)).toBe(true);
    expect(req.form?.files[1].data.equals(jpeg)).toBe(true);
  });

  it('refuses an unreadable reference image without calling the server', async () => {
    await expect(model().generateWithReferences(request, [Buffer.from('not an image')])).rejects.toBeInstanceOf(PermanentModelError);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('openai edits and transparency', () => {
  const SIZE = 64;
  const edit: ModelRequest = { prompt: 'a blue window', strength: 0.6, seed: 3, width: SIZE, height: SIZE };
  let any: FakeOpenAIServer;
  beforeAll(async () => {
    any = await startFakeOpenAI({ apiKey: API_KEY, sizes: 'any' });
  });
  afterAll(() => any.stop());
  beforeEach(() => {
    any.requests.length = 0;
    any.edits.length = 0;
  });
  const editing = (overrides: Partial<OpenAIModelConfig> = {}) =>
    createOpenAIModel({ baseUrl: any.url, apiKey: API_KEY, model: 'gpt-image-1', arbitrarySizes: true, timeoutMs: 5000, retry: fastRetry, ...overrides });
  const input = (colour = '#204080') =>
    sharp({ create: { width: SIZE, height: SIZE, channels: 3, background: colour } })
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
  const rgba = async (png: Buffer, x: number, y: number) => {
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)];
  };

  it.each([
    ['gpt-image-1', undefined, { mask: true, maxImages: 16 }, true],
    ['dall-e-2', undefined, { mask: true, maxImages: 1 }, undefined],
    ['dall-e-3', undefined, undefined, undefined],
    ['local-sdxl', undefined, { mask: true, maxImages: 1 }, undefined],
    ['gpt-image-1', 0, undefined, true],
    ['local-sdxl', 4, { mask: true, maxImages: 4 }, undefined],
  ])('%s with editImages %j edits %j, transparency %j, and has no upscaler', (name, editImages, edits, transparent) => {
    const m = editing({ model: name, editImages });
    expect(m.edits).toEqual(edits);
    expect(m.transparentBackground).toBe(transparent);
    expect(m.upscale).toBeUndefined();
  });

  it('posts an edit with a mask to /v1/images/edits as multipart: image, mask and the fields', async () => {
    const image = await editing({ quality: 'low' }).generate({ ...edit, edit: { images: [await input()], mask: await mask() } });
    expect([image.width, image.height]).toEqual([SIZE, SIZE]);
    const [req] = any.requests;
    expect(`${req.method} ${req.path}`).toBe('POST /v1/images/edits');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.form?.fields).toEqual({ model: ['gpt-image-1'], prompt: ['a blue window'], size: ['64x64'], n: ['1'], quality: ['low'] });
    expect(req.form?.files.map((f) => [f.field, f.filename, f.type])).toEqual([
      ['image', 'image-1.png', 'image/png'],
      ['mask', 'mask.png', 'image/png'],
    ]);
    const [got] = any.edits;
    expect(got.imageField).toBe('image');
    expect(got.images.map((i) => [i.width, i.height])).toEqual([[SIZE, SIZE]]);
    expect([got.mask?.width, got.mask?.height, got.mask?.hasAlpha]).toEqual([SIZE, SIZE, true]);
    // The fake paints where the mask is transparent: the mask went over as sent.
    const { r, g, b } = fakeImageColour('a blue window');
    expect(await rgba(image.data, 5, 5)).toEqual([0x20, 0x40, 0x80, 255]);
    expect(await rgba(image.data, 60, 5)).toEqual([r, g, b, 255]);
  });

  it('sends several images as image[] (the first is edited, the rest are references), without a mask', async () => {
    await editing().generate({ ...edit, edit: { images: [await input(), await input('#ffffff'), await input('#000000')] } });
    const [req] = any.requests;
    expect(req.form?.files.map((f) => f.field)).toEqual(['image[]', 'image[]', 'image[]']);
    expect(any.edits[0].images).toHaveLength(3);
    expect(any.edits[0].mask).toBeUndefined();
  });

  it('asks a GPT image model for a transparent background (PNG), for generations and edits', async () => {
    const image = await editing().generate({ ...edit, background: 'transparent' });
    expect(any.requests[0].json).toMatchObject({ background: 'transparent', output_format: 'png' });
    expect((await rgba(image.data, 1, 1))[3]).toBe(0);
    expect((await rgba(image.data, 32, 32))[3]).toBe(255);
    await editing().generate({ ...edit, background: 'opaque', edit: { images: [await input()] } });
    expect(any.requests[1].form?.fields.background).toEqual(['opaque']);
    expect(any.requests[1].form?.fields).not.toHaveProperty('output_format');
  });

  it('sends no background to models that do not take one', async () => {
    await editing({ model: 'dall-e-3', arbitrarySizes: true }).generate({ ...edit, background: 'transparent' });
    expect(any.requests[0].json).not.toHaveProperty('background');
    expect(any.requests[0].json).not.toHaveProperty('output_format');
  });

  it('refuses edits the model cannot make without calling the server', async () => {
    const image = await input();
    await expect(editing({ model: 'dall-e-3' }).generate({ ...edit, edit: { images: [image] } })).rejects.toThrow(
      new PermanentModelError('openai: this model cannot edit images'),
    );
    await expect(editing({ model: 'dall-e-2' }).generate({ ...edit, edit: { images: [image, image] } })).rejects.toThrow(
      'openai: this model takes at most 1 image per edit, got 2',
    );
    await expect(editing().generate({ ...edit, edit: { images: [image], mask: Buffer.from('x') } })).rejects.toThrow(/openai: mask cannot be read/);
    expect(any.requests).toHaveLength(0);
  });

  it("reports the server's refusal of a mask that does not fit the image as permanent", async () => {
    const small = await sharp({ create: { width: 32, height: 32, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    await expect(editing().generate({ ...edit, edit: { images: [await input()], mask: small } })).rejects.toThrow(
      new PermanentModelError('openai: HTTP 400: Invalid mask image: the mask and the image must have the same dimensions.'),
    );
  });
});
