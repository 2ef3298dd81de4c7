import sharp from 'sharp';
import { ImageDecodeError } from './encode';
import { PermanentModelError } from './providers/errors';
import { MAX_UPSCALED_SIDE } from '@promptpix/contracts';
import { fitUpscaled, resampleUpscale, upscaleTarget } from './upscale';

/** A 32×16 picture: left half red, right half blue, with a transparent bottom-right quarter. */
const picture = () => {
  const raw = Buffer.alloc(32 * 16 * 4);
  for (let y = 0; y < 16; y++) for (let x = 0; x < 32; x++) raw.set(x < 16 ? [255, 0, 0, 255] : y < 8 ? [0, 0, 255, 255] : [0, 0, 0, 0], (y * 32 + x) * 4);
  return sharp(raw, { raw: { width: 32, height: 16, channels: 4 } })
    .png()
    .toBuffer();
};

const pixel = async (png: Buffer, x: number, y: number) => {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [...data.subarray(at, at + 4)];
};

describe('resampleUpscale', () => {
  it.each([2, 4] as const)('makes a PNG of exactly %i× each side, keeping colours and alpha', async (factor) => {
    const image = await resampleUpscale(await picture(), factor);
    expect([image.width, image.height]).toEqual([32 * factor, 16 * factor]);
    const meta = await sharp(image.data).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 32 * factor, 16 * factor, true]);
    expect(await pixel(image.data, 2, 2)).toEqual([255, 0, 0, 255]);
    expect(await pixel(image.data, 32 * factor - 3, 2)).toEqual([0, 0, 255, 255]);
    expect((await pixel(image.data, 32 * factor - 3, 16 * factor - 3))[3]).toBe(0);
  });

  it('is deterministic', async () => {
    const input = await picture();
    expect((await resampleUpscale(input, 2)).data.equals((await resampleUpscale(input, 2)).data)).toBe(true);
  });

  it(`refuses a result above ${MAX_UPSCALED_SIDE} px on a side, before any resampling`, async () => {
    const wide = await sharp({ create: { width: 2049, height: 8, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    await expect(resampleUpscale(wide, 4)).rejects.toThrow(PermanentModelError);
    await expect(resampleUpscale(wide, 4)).rejects.toThrow('The upscaled image would be 8196 pixels on a side; at most 8192');
    expect((await resampleUpscale(wide, 2)).width).toBe(4098);
  });

  it('reports bytes that are not an image as an ImageDecodeError', async () => {
    await expect(resampleUpscale(Buffer.from('not a png'), 2)).rejects.toThrow(ImageDecodeError);
  });
});

describe('upscaleTarget and fitUpscaled', () => {
  it('computes the target and its bound', () => {
    expect(upscaleTarget(1024, 768, 4)).toEqual({ width: 4096, height: 3072 });
    expect(upscaleTarget(2048, 2048, 4)).toEqual({ width: 8192, height: 8192 });
    expect(() => upscaleTarget(4097, 10, 2)).toThrow(PermanentModelError);
  });

  it("resizes a backend's answer of another size, and leaves one of the right size alone", async () => {
    const data = await picture();
    const same = { data, width: 32, height: 16 };
    expect(await fitUpscaled(same, { width: 32, height: 16 })).toBe(same);
    const fitted = await fitUpscaled(same, { width: 64, height: 32 });
    expect([fitted.width, fitted.height]).toEqual([64, 32]);
    expect((await sharp(fitted.data).metadata()).width).toBe(64);
  });
});
