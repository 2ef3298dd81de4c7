import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { TransientModelError, type ModelProgress, type ModelRequest } from '@promptpix/core';
import { fakeImageColour, startFakeComfyUI, times, type FakeComfyUIServer } from '@promptpix/testing/fake-providers';
import { createComfyUIModel, type ComfyUIModelConfig } from './comfyui';
import { PermanentModelError } from './errors';

/** The sample workflow the docs show (ComfyUI's stock text-to-image graph), as an operator saves it. */
const SAMPLE = JSON.parse(readFileSync(join(__dirname, '../../../../docs/backends/comfyui-workflow.json'), 'utf8')) as Record<string, any>;

/** The sample with a reference image: LoadImage → VAEEncode → the sampler's latent. */
const WITH_REFERENCE = {
  ...structuredClone(SAMPLE),
  '10': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '11': { class_type: 'VAEEncode', inputs: { pixels: ['10', 0], vae: ['4', 2] } },
  '3': { ...SAMPLE['3'], inputs: { ...SAMPLE['3'].inputs, latent_image: ['11', 0], denoise: 0.6 } },
};

/** The edit and upscale workflows the docs show. */
const EDIT = JSON.parse(readFileSync(join(__dirname, '../../../../docs/backends/comfyui-edit-workflow.json'), 'utf8')) as Record<string, any>;
const UPSCALE = JSON.parse(readFileSync(join(__dirname, '../../../../docs/backends/comfyui-upscale-workflow.json'), 'utf8')) as Record<string, any>;

const request: ModelRequest = { prompt: 'a lighthouse in a storm', strength: 1, seed: 4242, width: 1536, height: 1024 };

let fake: FakeComfyUIServer;
beforeAll(async () => {
  fake = await startFakeComfyUI();
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.setBehaviour({});
  fake.requests.length = 0;
  fake.received.length = 0;
});

const model = (overrides: Partial<ComfyUIModelConfig> = {}) =>
  createComfyUIModel({ baseUrl: fake.url, workflow: SAMPLE, timeoutMs: 10_000, pollIntervalMs: 20, retry: { baseDelayMs: 10, maxDelayMs: 40 }, ...overrides });

const lines = () => fake.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`);
const posted = () => fake.requests.find((r) => r.method === 'POST' && r.path === '/prompt')!.json;

async function firstPixel(data: Buffer) {
  const px = await sharp(data).raw().toBuffer();
  return { r: px[0], g: px[1], b: px[2] };
}

/** Waits for a condition, failing after a deadline (no fixed sleeps). */
async function until(condition: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('comfyui adapter', () => {
  it('queues the workflow with the request placed by node id, follows the websocket and fetches the image', async () => {
    const progress: ModelProgress[] = [];
    const image = await model({ steps: 30 }).generate({
      ...request,
      negativePrompt: 'people',
      promptTemplate: 'oil painting of {prompt}',
      onProgress: (p) => progress.push(p),
    });

    const sent = 'oil painting of a lighthouse in a storm';
    expect([image.width, image.height]).toEqual([1024, 680]);
    expect(await firstPixel(image.data)).toEqual(fakeImageColour(sent));

    const body = posted();
    expect(body.prompt['6'].inputs.text).toBe(sent);
    expect(body.prompt['7'].inputs.text).toBe('text, watermark, people');
    expect(body.prompt['3'].inputs).toMatchObject({ seed: 4242, steps: 30, positive: ['6', 0] });
    expect(body.prompt['5'].inputs).toMatchObject({ width: 1024, height: 680, batch_size: 1 });
    expect(body.prompt['4'].inputs.ckpt_name).toBe('v1-5-pruned-emaonly.safetensors');
    expect(typeof body.client_id).toBe('string');
    expect(fake.socketsOpened()).toBeGreaterThan(0);
    expect(lines()).toEqual(['POST /prompt', `GET /history/${fake.requests[1].path.split('/').pop()}`, 'GET /view']);
    expect(fake.requests[2].path).toMatch(/^\/view\?filename=promptpix_\d{5}_\.png&subfolder=&type=output$/);

    // The sampler's steps arrive as fractions, in order, ending at the download.
    const fractions = progress.map((p) => p.fraction).filter((f): f is number => f !== undefined);
    expect(fractions).toEqual([0, 0.25, 0.5, 0.75, 1, 1]);
    expect(progress).toContainEqual({ fraction: 0.5, message: 'KSampler: step 2/4' });
  });

  it('leaves the workflow’s own steps and negative text alone when the request has none', async () => {
    await model().generate(request);
    expect(posted().prompt['3'].inputs.steps).toBe(20);
    expect(posted().prompt['7'].inputs.text).toBe('text, watermark');
  });

  it('polls /history when the websocket is refused', async () => {
    fake.setBehaviour({ websocket: 'refuse', stepMs: 10 });
    const progress: ModelProgress[] = [];
    const image = await model().generate({ ...request, onProgress: (p) => progress.push(p) });
    expect(await firstPixel(image.data)).toEqual(fakeImageColour(request.prompt));
    expect(lines().filter((l) => l.startsWith('GET /history/')).length).toBeGreaterThanOrEqual(1);
    expect(progress.filter((p) => p.fraction !== undefined && p.fraction < 1)).toEqual([]);
  });

  it('falls back to polling when the websocket drops mid-prompt', async () => {
    fake.setBehaviour({ websocket: 'drop', stepMs: 10 });
    const image = await model().generate(request);
    expect(await firstPixel(image.data)).toEqual(fakeImageColour(request.prompt));
    expect(lines().at(-1)).toBe('GET /view');
  });

  it('gives up a silent websocket for polling', async () => {
    fake.setBehaviour({ websocket: 'silent', stepMs: 20 });
    const image = await model({ websocketSilenceMs: 100 }).generate(request);
    expect(await firstPixel(image.data)).toEqual(fakeImageColour(request.prompt));
    expect(lines().filter((l) => l.startsWith('GET /history/')).length).toBeGreaterThanOrEqual(1);
  });

  it('polls only when the websocket is turned off', async () => {
    const opened = fake.socketsOpened();
    await model({ websocket: false }).generate(request);
    expect(fake.socketsOpened()).toBe(opened);
  });

  it('interrupts its running prompt when the caller aborts, and rejects with the reason', async () => {
    fake.setBehaviour({ holdAtStep: 2 });
    const controller = new AbortController();
    const call = model().generate(
      { ...request, onProgress: (p) => p.fraction === 0.25 && controller.abort(new Error('cancelled by the caller')) },
      controller.signal,
    );
    await expect(call).rejects.toThrow('cancelled by the caller');
    const interrupt = fake.requests.find((r) => r.method === 'POST' && r.path === '/interrupt');
    expect(interrupt?.json).toEqual({ prompt_id: expect.any(String) });
    await until(() => fake.queue().running.length === 0, 'the interrupted prompt to end');
    expect(lines()).not.toContain('POST /queue');
  });

  it('deletes its prompt from the queue when it times out while still queued', async () => {
    fake.setBehaviour({ busy: true });
    const call = model({ timeoutMs: 1000 }).generate(request);
    await expect(call).rejects.toBeInstanceOf(TransientModelError);
    await expect(call).rejects.toThrow('comfyui: no result within 1000 ms');
    const deletion = fake.requests.find((r) => r.method === 'POST' && r.path === '/queue');
    expect(deletion?.json).toEqual({ delete: [expect.any(String)] });
    expect(fake.queue().pending).toEqual([]);
    // The other client's running prompt is not touched.
    expect(fake.queue().running).toHaveLength(1);
    expect(lines()).not.toContain('POST /interrupt');
  });

  it('deletes a queued prompt on abort too, found by polling when there is no websocket', async () => {
    fake.setBehaviour({ busy: true, websocket: 'refuse' });
    const controller = new AbortController();
    const call = model().generate(request, controller.signal);
    await until(() => fake.queue().pending.length === 1, 'the prompt to be queued');
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    expect(fake.queue().pending).toEqual([]);
  });

  it.each([
    ['websocket', 'on' as const],
    ['polling', 'refuse' as const],
  ])('reports execution_error (%s) as a permanent failure naming the node, and out-of-memory as transient', async (_path, websocket) => {
    fake.setBehaviour({ websocket, executionError: { type: 'FileNotFoundError', message: 'model file missing' } });
    const failure = model().generate(request);
    await expect(failure).rejects.toBeInstanceOf(PermanentModelError);
    await expect(failure).rejects.toThrow(/^comfyui: prompt [\w-]+ failed in node 3 \(KSampler\): FileNotFoundError: model file missing$/);

    fake.setBehaviour({ websocket, executionError: { type: 'torch.OutOfMemoryError', message: 'CUDA out of memory.' } });
    await expect(model().generate(request)).rejects.toBeInstanceOf(TransientModelError);
  });

  it("fails for good on ComfyUI's validation errors, with the node errors", async () => {
    const broken = { ...structuredClone(SAMPLE), '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 'one' } } };
    await expect(model({ workflow: broken }).generate(request)).rejects.toThrow(
      new PermanentModelError(
        'comfyui: HTTP 400: Prompt outputs failed validation; node 5 (EmptyLatentImage): Failed to convert an input value to a INT value: batch_size, one',
      ),
    );
    const unknown = { ...structuredClone(SAMPLE), '12': { class_type: 'NotANode', inputs: {} } };
    await expect(model({ workflow: unknown }).generate(request)).rejects.toThrow(
      new PermanentModelError("comfyui: HTTP 400: Cannot execute because node NotANode does not exist.: Node ID '#12'"),
    );
    expect(lines().filter((l) => l === 'POST /prompt')).toHaveLength(2);
  });

  it('retries 5xx and dropped connections, then turns repeated ones into a TransientModelError', async () => {
    fake.setBehaviour({ failures: [{ status: 500, message: 'boom' }, { network: true }] });
    const image = await model().generate(request);
    expect(image.width).toBe(1024);
    fake.setBehaviour({ failures: times(3, { status: 503, message: 'restarting' }) });
    await expect(model().generate(request)).rejects.toThrow(new TransientModelError('comfyui: HTTP 503: restarting'));
  });

  it("uploads a character's reference image and points the workflow's LoadImage node at it", async () => {
    const reference = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const other = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const character = { name: 'Ada', images: [reference, other] };
    await model({ workflow: WITH_REFERENCE }).generate({ ...request, character });
    await model({ workflow: WITH_REFERENCE }).generateWithReferences(request, [reference]);

    const uploadsSent = fake.requests.filter((r) => r.path === '/upload/image');
    expect(uploadsSent).toHaveLength(2);
    const [file] = uploadsSent[0].form!.files;
    expect(file).toMatchObject({ field: 'image', type: 'image/png' });
    expect(file.data.equals(reference)).toBe(true);
    expect(uploadsSent[0].form!.fields).toMatchObject({ type: ['input'], overwrite: ['true'] });
    // Named by content: the same reference is stored once.
    expect(fake.uploads.size).toBe(1);
    const prompts = fake.requests.filter((r) => r.path === '/prompt');
    for (const p of prompts) expect(p.json.prompt['10'].inputs.image).toBe(file.filename);
  });

  it('ignores references when the workflow has no image input', async () => {
    const reference = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    await model().generate({ ...request, character: { name: 'Ada', images: [reference] } });
    expect(lines()).not.toContain('POST /upload/image');
  });

  it('takes an explicit node mapping on top of what it finds', async () => {
    const twoTexts = { ...structuredClone(SAMPLE), '20': { class_type: 'CLIPTextEncode', inputs: { text: 'unused', clip: ['4', 1] } } };
    const m = model({ workflow: twoTexts, nodes: { prompt: '20.text', output: '9' } });
    expect(m.placements).toMatchObject({ prompt: { node: '20', input: 'text' }, seed: { node: '3', input: 'seed' }, output: { node: '9' } });
    await m.generate(request);
    expect(posted().prompt['20'].inputs.text).toBe(request.prompt);
    expect(posted().prompt['6'].inputs.text).toBe('a glass bottle on a beach');
  });

  it.each([
    [
      'a node the workflow lacks',
      { nodes: { prompt: '99.text' } },
      'comfyui: node mapping "prompt" names node "99", which the workflow does not have (its nodes: 3, 4, 5, 6, 7, 8, 9)',
    ],
    [
      'an input the node lacks',
      { nodes: { seed: '3.noise' } },
      'comfyui: node mapping "seed" names input "noise" of node "3" (KSampler), which has no such input',
    ],
    [
      'a wired input',
      { nodes: { prompt: '3.positive' } },
      'comfyui: node mapping "prompt": input "positive" of node "3" is wired to node "6"; map the node that holds the value',
    ],
    ['an unknown entry', { nodes: { cfg: '3.cfg' } as never }, 'comfyui: unknown entry "cfg" in the node mapping'],
    ['a malformed entry', { nodes: { prompt: '6' } }, 'comfyui: node mapping "prompt" must be "<node id>.<input name>"'],
    ['the UI format', { workflow: { nodes: [], links: [], version: 0.4 } }, 'comfyui: this is the UI format; export the workflow with "Save (API Format)"'],
    [
      'no output node',
      { workflow: { '1': { class_type: 'CLIPTextEncode', inputs: { text: 'x' } } } },
      'comfyui: the workflow has no output node (SaveImage or PreviewImage)',
    ],
    ['no place for the prompt', { workflow: { '9': { class_type: 'SaveImage', inputs: { images: ['8', 0] } } } }, 'comfyui: cannot tell where the prompt goes'],
  ])('refuses to start with %s', (_name, overrides, message) => {
    expect(() => model(overrides as Partial<ComfyUIModelConfig>)).toThrow(message);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('comfyui edits and upscaling', () => {
  const SIZE = 64;
  const edit: ModelRequest = { prompt: 'an orange boat', strength: 1, seed: 11, width: SIZE, height: SIZE };
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
  const uploadsSent = () => fake.requests.filter((r) => r.path === '/upload/image');

  it('edits and upscales only with the workflows for them; never transparent', () => {
    const plain = model();
    expect(plain.edits).toBeUndefined();
    expect(plain.upscale).toBeUndefined();
    expect(plain.transparentBackground).toBeUndefined();
    const full = model({ editWorkflow: EDIT, upscaleWorkflow: UPSCALE });
    expect(full.edits).toEqual({ mask: true, maxImages: 1 });
    expect(typeof full.upscale).toBe('function');
    const { '11': _mask, '12': _noise, ...unmasked } = structuredClone(EDIT);
    unmasked['3'].inputs.latent_image = ['13', 0];
    expect(model({ editWorkflow: unmasked }).edits).toEqual({ mask: false, maxImages: 1 });
  });

  it('refuses an edit without an edit workflow, naming what to configure, without calling the server', async () => {
    await expect(model().generate({ ...edit, edit: { images: [await input()] } })).rejects.toThrow(
      new PermanentModelError(
        'comfyui: this model cannot edit images: set editWorkflow (an API-format img2img or inpainting workflow) in its models-file entry',
      ),
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('uploads the image and the mask, places their names and the strength as denoise, and fetches the edit', async () => {
    const image = await model({ editWorkflow: EDIT }).generate({ ...edit, edit: { images: [await input()], mask: await mask() } });
    const uploads = uploadsSent();
    expect(uploads).toHaveLength(2);
    for (const u of uploads) {
      expect(u.form!.fields).toMatchObject({ type: ['input'], overwrite: ['true'] });
      expect(u.form!.files.map((f) => [f.field, f.type])).toEqual([['image', 'image/png']]);
    }
    const [sentImage, sentMask] = fake.received;
    expect([sentImage.image?.width, sentImage.image?.height, sentImage.image?.hasAlpha]).toEqual([SIZE, SIZE, false]);
    expect([sentMask.image?.width, sentMask.image?.height, sentMask.image?.hasAlpha]).toEqual([SIZE, SIZE, true]);
    const prompt = posted().prompt;
    expect(prompt['10'].inputs.image).toBe(sentImage.name);
    expect(prompt['11'].inputs).toEqual({ image: sentMask.name, channel: 'alpha' });
    expect(prompt['3'].inputs).toMatchObject({ denoise: 1, seed: 11 });
    expect(prompt['6'].inputs.text).toBe('an orange boat');
    // LoadImageMask reads alpha 0 as "repaint": the left half stays, the right half is the prompt's.
    expect(await rgb(image.data, 5, 5)).toEqual({ r: 0x20, g: 0x40, b: 0x80 });
    expect(await rgb(image.data, 60, 5)).toEqual(fakeImageColour('an orange boat'));
  });

  it('edits without a mask on an inpainting workflow with a fully transparent mask, by strength', async () => {
    await model({ editWorkflow: EDIT }).generate({ ...edit, strength: 0.35, edit: { images: [await input()] } });
    const sentMask = fake.received[1].image!;
    expect([sentMask.width, sentMask.height]).toEqual([SIZE, SIZE]);
    expect(sentMask.rgba.every((v, i) => i % 4 !== 3 || v === 0)).toBe(true);
    expect(posted().prompt['3'].inputs.denoise).toBe(0.35);
  });

  it('refuses a mask for an edit workflow that takes none', async () => {
    const { '11': _mask, '12': _noise, ...unmasked } = structuredClone(EDIT);
    unmasked['3'].inputs.latent_image = ['13', 0];
    await expect(model({ editWorkflow: unmasked }).generate({ ...edit, edit: { images: [await input()], mask: await mask() } })).rejects.toThrow(
      'comfyui: the edit workflow takes no mask: add a LoadImageMask node (channel alpha) or map editNodes.mask',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('checks the edit and upscale workflows at start-up, naming which one', () => {
    const { '10': _image, ...noImage } = structuredClone(EDIT);
    expect(() => model({ editWorkflow: noImage })).toThrow('comfyui: editWorkflow: cannot tell where the image goes');
    expect(() => model({ upscaleWorkflow: { '9': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } } })).toThrow(
      'comfyui: upscaleWorkflow: cannot tell where the image goes',
    );
    expect(() => model({ upscaleWorkflow: UPSCALE, upscaleNodes: { scale: '3.factor' } })).toThrow('comfyui: upscaleWorkflow: node mapping "scale"');
  });

  it("upscales through the workflow: the image uploaded, a fixed-scale model's answer fitted to the factor", async () => {
    const upscaled = await model({ upscaleWorkflow: UPSCALE }).upscale!({ image: await input(), width: SIZE, height: SIZE, factor: 2, seed: 1 });
    expect([upscaled.width, upscaled.height]).toEqual([SIZE * 2, SIZE * 2]);
    expect(await rgb(upscaled.data, 9, 9)).toEqual({ r: 0x20, g: 0x40, b: 0x80 });
    expect(posted().prompt['1'].inputs.image).toBe(fake.received[0].name);
    expect(lines().at(-1)).toBe('GET /view');
  });

  it('places the factor into an ImageScaleBy', async () => {
    const byScale = {
      '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
      '2': { class_type: 'ImageScaleBy', inputs: { upscale_method: 'lanczos', scale_by: 1.5, image: ['1', 0] } },
      '3': { class_type: 'SaveImage', inputs: { filename_prefix: 'up', images: ['2', 0] } },
    };
    const upscaled = await model({ upscaleWorkflow: byScale }).upscale!({ image: await input(), width: SIZE, height: SIZE, factor: 4, seed: 1 });
    expect(posted().prompt['2'].inputs.scale_by).toBe(4);
    expect([upscaled.width, upscaled.height]).toEqual([SIZE * 4, SIZE * 4]);
  });
});
