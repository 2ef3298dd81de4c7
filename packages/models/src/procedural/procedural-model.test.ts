import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { ModelRequest } from '@promptpix/core';
import { createModel } from '../create-model';
import { createProceduralModel } from './procedural-model';
import { applyRecipe, recipeFor, type StyleRecipe } from './style';

const model = createProceduralModel();
const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  prompt: 'a cat watching the sunset over the ocean',
  strength: 1,
  seed: 42,
  width: 256,
  height: 256,
  ...over,
});
const render = async (over: Partial<ModelRequest> = {}) => (await model.generate(request(over))).data;

/** 16×16 RGB thumbnail, the scale at which "clearly different" is judged. */
const thumb = (png: Buffer) => sharp(png).resize(16, 16, { fit: 'fill' }).removeAlpha().raw().toBuffer();
const meanAbsDiff = (a: Buffer, b: Buffer) => a.reduce((sum, v, i) => sum + Math.abs(v - b[i]), 0) / a.length;
const pictureDiff = async (a: Partial<ModelRequest>, b: Partial<ModelRequest>) => meanAbsDiff(await thumb(await render(a)), await thumb(await render(b)));

describe('procedural model', () => {
  it('is named procedural', () => {
    expect(model.name).toBe('procedural');
  });

  it('is deterministic: the same request gives byte-identical PNGs, across instances too', async () => {
    const first = await render();
    expect((await render()).equals(first)).toBe(true);
    expect((await createProceduralModel().generate(request())).data.equals(first)).toBe(true);
    expect(first.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('treats prompts differing only in spacing (one cache key) as the same prompt', async () => {
    const a = await render({ prompt: 'a red fox in the forest' });
    expect((await render({ prompt: '  a red fox   in the forest ' })).equals(a)).toBe(true);
  });

  it.each([
    [256, 256],
    [1024, 1024],
    [512, 1536],
    [1536, 512],
    [2048, 2048],
  ])('renders exactly %i×%i', async (width, height) => {
    const image = await model.generate(request({ width, height }));
    expect([image.width, image.height]).toEqual([width, height]);
    const meta = await sharp(image.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', width, height]);
  });

  it.each(['a cat watching the sunset over the ocean', 'snowy mountains', 'a robot in the city at night', 'x', 'quantum banana symphony', '東京の夜景'])(
    'draws a picture, not a flat colour: %s',
    async (prompt) => {
      const { channels } = await sharp(await render({ prompt })).stats();
      for (const channel of channels.slice(0, 3)) expect(channel.stdev).toBeGreaterThan(12);
    },
  );

  it.each([
    ['a cat on a hill at sunset', 'a dog on a hill at sunset'],
    ['a red fox in the forest', 'a red fox in the desert'],
    ['sunset over the ocean', 'sunset over the calm ocean'],
    ['a robot in the city at night', 'a robot in the city at noon'],
    ['snowy mountains', 'snowy mountains lake'],
    ['portrait of an old wizard', 'portrait of an young wizard'],
    ['hello world', 'goodbye world'],
    ['abstract dream', 'abstract dreams'],
  ])('different prompts give clearly different pictures: "%s" vs "%s"', async (a, b) => {
    expect(await pictureDiff({ prompt: a }, { prompt: b })).toBeGreaterThan(8);
  });

  it.each(['a cat on a hill at sunset', 'snowy mountains', 'a robot in the city at night'])('different seeds give different pictures: %s', async (prompt) => {
    const diffs = await Promise.all([2, 3, 1000].map((seed) => pictureDiff({ prompt, seed: 1 }, { prompt, seed })));
    for (const d of diffs) expect(d).toBeGreaterThan(8);
  });

  it('keeps the scene when only the size changes (same aspect)', async () => {
    expect(await pictureDiff({ width: 256, height: 256 }, { width: 512, height: 512 })).toBeLessThan(4);
  });

  it('renders an unknown style, a prototype key and no style identically; a preset changes the picture', async () => {
    const plain = await render();
    expect((await render({ style: 'no-such-style', strength: 0.3 })).equals(plain)).toBe(true);
    expect((await render({ style: 'constructor' })).equals(plain)).toBe(true);
    expect(recipeFor('__proto__')).toBeUndefined();
    expect(await pictureDiff({}, { style: 'watercolor' })).toBeGreaterThan(8);
  });

  it('rejects sizes it cannot draw', async () => {
    await expect(model.generate(request({ width: 0 }))).rejects.toThrow(RangeError);
    await expect(model.generate(request({ height: 100.5 }))).rejects.toThrow(/height must be an integer/);
  });

  it('saves sample renders to test-artifacts/procedural', async () => {
    const dir = path.resolve(__dirname, '../../../../test-artifacts/procedural');
    mkdirSync(dir, { recursive: true });
    const samples: Array<[string, Partial<ModelRequest>]> = [
      ['cat-sunset-ocean', { prompt: 'a cat watching the sunset over the ocean', width: 1024, height: 1024 }],
      ['robot-snowy-forest-night', { prompt: 'a robot in a snowy forest at night', width: 1024, height: 1024 }],
      ['city-rain', { prompt: 'city skyline in the rain', width: 1024, height: 1024 }],
      ['dragon-fire', { prompt: 'red dragon breathing fire', width: 1024, height: 1024 }],
      ['dog-meadow-tall', { prompt: 'a dog in a flower meadow', width: 512, height: 1536 }],
      ['abstract', { prompt: 'quantum banana symphony', width: 1024, height: 1024 }],
    ];
    for (const [name, over] of samples) {
      const data = await render(over);
      writeFileSync(path.join(dir, `${name}.png`), data);
    }
  });
});

describe('style seam', () => {
  it('leaves the pipeline alone without a recipe', async () => {
    const image = sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } });
    expect(await applyRecipe(image, undefined, 1, { width: 4, height: 4 })).toBe(image);
  });

  it('hands a recipe the pipeline and a strength clamped to 0..1', async () => {
    const seen: number[] = [];
    const recipe: StyleRecipe = {
      apply: (img, strength) => {
        seen.push(strength);
        return img.negate();
      },
    };
    const image = sharp({ create: { width: 4, height: 4, channels: 3, background: '#000000' } });
    const out = await applyRecipe(image, recipe, 7, { width: 4, height: 4 });
    await applyRecipe(image, recipe, -1, { width: 4, height: 4 });
    expect(seen).toEqual([1, 0]);
    const { channels } = await out
      .png()
      .toBuffer()
      .then((b) => sharp(b).stats());
    expect(channels[0].mean).toBe(255);
  });
});

describe('latency and abort', () => {
  it('waits at least latencyMs before answering', async () => {
    const slow = createProceduralModel({ latencyMs: 120 });
    const started = performance.now();
    await slow.generate(request());
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('rejects promptly when aborted during the wait', async () => {
    const slow = createProceduralModel({ latencyMs: 10_000 });
    const controller = new AbortController();
    const started = performance.now();
    const pending = slow.generate(request(), controller.signal);
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('rejects promptly when aborted during rendering, without latency', async () => {
    const controller = new AbortController();
    const pending = model.generate(request({ width: 2048, height: 2048 }), controller.signal);
    setTimeout(() => controller.abort(), 1);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects with the reason the caller gave', async () => {
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    const pending = createProceduralModel({ latencyMs: 10_000 }).generate(request(), controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects at once for an already aborted signal', async () => {
    await expect(model.generate(request(), AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('refuses a negative latency', () => {
    expect(() => createProceduralModel({ latencyMs: -1 })).toThrow(RangeError);
  });
});

describe('createModel', () => {
  it('builds the procedural model', () => {
    expect(createModel({ provider: 'procedural', latencyMs: 0 }).name).toBe('procedural');
  });

  it('names the known providers when given an unknown one', () => {
    expect(() => createModel({ provider: 'dall-e' })).toThrow('Unknown model provider "dall-e"; known providers: procedural');
  });
});
