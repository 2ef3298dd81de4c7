import sharp from 'sharp';
import { TransientModelError, type ModelProgress, type ModelRequest } from '@promptpix/core';
import { fakeImageColour, startFakeA1111, times, type FakeA1111Behaviour, type FakeProviderServer } from '@promptpix/testing/fake-providers';
import { a1111Size, createA1111Model, type A1111ModelConfig } from './a1111';
import { PermanentModelError } from './errors';

const request: ModelRequest = { prompt: 'a misty forest at dawn', strength: 0.5, seed: 1234, width: 1920, height: 1080 };

let fake: FakeProviderServer<FakeA1111Behaviour>;
beforeAll(async () => {
  fake = await startFakeA1111({ username: 'pix', password: 's3cret' });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.setBehaviour({});
  fake.requests.length = 0;
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
