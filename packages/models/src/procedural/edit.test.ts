import sharp from 'sharp';
import type { ModelRequest } from '@promptpix/core';
import { PermanentModelError } from '../providers/errors';
import { createProceduralModel } from './procedural-model';

const model = createProceduralModel();
const SIZE = 64;
const base: ModelRequest = { prompt: 'a cat watching the sunset over the ocean', strength: 1, seed: 7, width: SIZE, height: SIZE };

/** RGBA bytes of a PNG. */
const rgba = async (png: Buffer) => sharp(png).ensureAlpha().raw().toBuffer();
const pixel = (raw: Buffer, x: number, y: number) => [...raw.subarray((y * SIZE + x) * 4, (y * SIZE + x) * 4 + 4)];

/** The input: a grey ramp no scene draws, opaque. */
const input = () => {
  const raw = Buffer.alloc(SIZE * SIZE * 4);
  for (let i = 0; i < SIZE * SIZE; i++) raw.set([(i % SIZE) * 2, 90, 200 - (i % SIZE), 255], i * 4);
  return sharp(raw, { raw: { width: SIZE, height: SIZE, channels: 4 } })
    .png()
    .toBuffer();
};

/** OpenAI's convention: opaque (keep) on the left half, transparent (may change) on the right half. */
const rightHalfMask = () => {
  const raw = Buffer.alloc(SIZE * SIZE * 4);
  for (let i = 0; i < SIZE * SIZE; i++) raw.set([0, 0, 0, i % SIZE < SIZE / 2 ? 255 : 0], i * 4);
  return sharp(raw, { raw: { width: SIZE, height: SIZE, channels: 4 } })
    .png()
    .toBuffer();
};

describe('procedural edits', () => {
  it('says what it takes: one image, with or without a mask, and transparency', () => {
    expect(model.edits).toEqual({ mask: true, maxImages: 1 });
    expect(model.transparentBackground).toBe(true);
    expect(model.upscale).toBeUndefined();
  });

  it('is deterministic: the same edit gives the same bytes', async () => {
    const edit = { images: [await input()], mask: await rightHalfMask() };
    const first = await model.generate({ ...base, strength: 0.7, edit });
    const again = await createProceduralModel().generate({ ...base, strength: 0.7, edit });
    expect(again.data.equals(first.data)).toBe(true);
    expect([first.width, first.height]).toEqual([SIZE, SIZE]);
  });

  it('keeps every pixel under the opaque part of the mask and repaints the transparent part with the scene', async () => {
    const original = await rgba(await input());
    const scene = await rgba((await model.generate(base)).data);
    const edited = await rgba((await model.generate({ ...base, edit: { images: [await input()], mask: await rightHalfMask() } })).data);
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE / 2; x++) expect(pixel(edited, x, y)).toEqual(pixel(original, x, y));
    }
    // Away from the softened edge, strength 1 puts the scene in as it is.
    for (const [x, y] of [
      [60, 5],
      [50, 32],
      [63, 63],
    ]) {
      expect(pixel(edited, x, y)).toEqual(pixel(scene, x, y));
      expect(pixel(edited, x, y)).not.toEqual(pixel(original, x, y));
    }
  });

  it('blends by strength: 0 keeps the input, a half-way strength lies between input and scene', async () => {
    const original = await rgba(await input());
    const scene = await rgba((await model.generate(base)).data);
    const edit = { images: [await input()], mask: await rightHalfMask() };
    expect(await rgba((await model.generate({ ...base, strength: 0, edit })).data)).toEqual(original);
    const half = await rgba((await model.generate({ ...base, strength: 0.5, edit })).data);
    const [x, y] = [56, 40];
    for (let c = 0; c < 3; c++) expect(pixel(half, x, y)[c]).toBeCloseTo((pixel(original, x, y)[c] + pixel(scene, x, y)[c]) / 2, -0.5);
  });

  it('without a mask restyles and blends the whole image by strength', async () => {
    const original = await rgba(await input());
    const scene = await rgba((await model.generate({ ...base, style: 'watercolor' })).data);
    const full = await rgba((await model.generate({ ...base, style: 'watercolor', edit: { images: [await input()] } })).data);
    expect(full).toEqual(scene);
    const light = await rgba((await model.generate({ ...base, style: 'watercolor', strength: 0.3, edit: { images: [await input()] } })).data);
    const distance = (a: Buffer, b: Buffer) => a.reduce((sum, v, i) => sum + Math.abs(v - b[i]), 0) / a.length;
    expect(distance(light, original)).toBeGreaterThan(2);
    expect(distance(light, original)).toBeLessThan(distance(light, scene));
  });

  it('refuses what it cannot do, before drawing: references, an unreadable mask', async () => {
    const image = await input();
    await expect(model.generate({ ...base, edit: { images: [image, image] } })).rejects.toThrow(
      new PermanentModelError('procedural: this model takes at most 1 image per edit, got 2'),
    );
    await expect(model.generate({ ...base, edit: { images: [image], mask: Buffer.from('nope') } })).rejects.toThrow(/procedural: the mask cannot be read/);
    await expect(model.generate({ ...base, edit: { images: [] } })).rejects.toThrow(PermanentModelError);
  });
});

describe('procedural transparent background', () => {
  const alphaOf = async (png: Buffer) => {
    const raw = await rgba(png);
    const alpha = [...raw.filter((_, i) => i % 4 === 3)];
    return { clear: alpha.filter((a) => a === 0).length / alpha.length, opaque: alpha.filter((a) => a === 255).length / alpha.length };
  };

  it('leaves the sky and the ground out, keeping what stands in the picture', async () => {
    const image = await model.generate({ ...base, width: 128, height: 128, background: 'transparent' });
    expect((await sharp(image.data).metadata()).hasAlpha).toBe(true);
    const { clear, opaque } = await alphaOf(image.data);
    expect(clear).toBeGreaterThan(0.3);
    expect(opaque).toBeGreaterThan(0.02);
  });

  it.each([3, 16, 20])('leaves the sun, the clouds and the birds out too (a cat, seed %i: its top row is clear)', async (seed) => {
    const image = await model.generate({ prompt: 'a cat', strength: 1, seed, width: 128, height: 128, background: 'transparent' });
    const topRow = (await rgba(image.data)).subarray(0, 128 * 4).filter((_, i) => i % 4 === 3);
    expect(Math.max(...topRow)).toBe(0);
  });

  it('keeps the ground of a landscape that has nothing else to show, and keeps alpha through a style', async () => {
    const { clear, opaque } = await alphaOf(
      (await model.generate({ ...base, prompt: 'snowy mountains', style: 'watercolor', background: 'transparent' })).data,
    );
    expect(clear).toBeGreaterThan(0.1);
    expect(opaque).toBeGreaterThan(0.2);
  });

  it.each(['auto', 'opaque', undefined] as const)('draws the whole backdrop for background %s', async (background) => {
    const { opaque } = await alphaOf((await model.generate({ ...base, background })).data);
    expect(opaque).toBe(1);
  });
});
