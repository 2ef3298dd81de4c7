import { IMAGE_INPUT_LIMITS, ImageInputMessages } from '@promptpix/contracts';
import { AppError } from '@promptpix/core';
import { pngClaiming } from '@promptpix/testing';
import sharp from 'sharp';
import { fitEditInputs } from './fit';
import { sanitizeImageInput } from './sanitize';

const solid = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp({ create: { width, height, channels, background: channels === 4 ? { r: 10, g: 200, b: 30, alpha: 0.5 } : { r: 10, g: 200, b: 30 } } });

async function refusal(promise: Promise<unknown>): Promise<{ field: string; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const fieldErrors = ((error as AppError).body.details as { fieldErrors: Record<string, string[]> }).fieldErrors;
  const [field, messages] = Object.entries(fieldErrors)[0];
  return { field, message: messages[0] };
}

describe('sanitizeImageInput', () => {
  it('re-encodes a JPEG as PNG and hashes what it returns', async () => {
    const jpeg = await solid(40, 30).jpeg().toBuffer();
    const out = await sanitizeImageInput(jpeg, 'image');
    expect((await sharp(out.data).metadata()).format).toBe('png');
    expect(out).toMatchObject({ width: 40, height: 30, hasAlpha: false });
    expect(out.sha256).toMatch(/^[0-9a-f]{64}$/);
    const again = await sanitizeImageInput(jpeg, 'image');
    expect(again.sha256).toBe(out.sha256);
  });

  it('keeps an alpha channel (a mask)', async () => {
    const out = await sanitizeImageInput(await solid(16, 16, 4).webp({ lossless: true }).toBuffer(), 'mask');
    expect(out.hasAlpha).toBe(true);
    expect((await sharp(out.data).metadata()).hasAlpha).toBe(true);
  });

  it('strips EXIF (GPS included) and every other metadata block', async () => {
    const withGps = await solid(32, 32)
      .withExif({ IFD0: { Make: 'Spy Camera', Copyright: 'someone' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
      .jpeg()
      .toBuffer();
    const before = await sharp(withGps).metadata();
    expect(before.exif?.toString('latin1')).toContain('Spy Camera');
    const out = await sanitizeImageInput(withGps, 'image');
    const after = await sharp(out.data).metadata();
    expect(after.exif).toBeUndefined();
    expect(after.xmp).toBeUndefined();
    expect(after.icc).toBeUndefined();
    expect(out.data.toString('latin1')).not.toContain('Spy Camera');
    expect(out.data.toString('latin1')).not.toContain('eXIf');
  });

  it('applies EXIF orientation to the pixels: a 40×20 JPEG tagged "rotate 90°" comes out 20×40', async () => {
    const rotated = await solid(40, 20).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    expect((await sharp(rotated).metadata()).orientation).toBe(6);
    const out = await sanitizeImageInput(rotated, 'image');
    expect(out).toMatchObject({ width: 20, height: 40 });
    expect((await sharp(out.data).metadata()).orientation).toBeUndefined();
  });

  it('refuses a decompression bomb from its header, before decoding a pixel', async () => {
    const bomb = await pngClaiming(30_000, 30_000);
    expect(bomb.length).toBeLessThan(200);
    expect((await sharp(bomb, { limitInputPixels: false }).metadata()).width).toBe(30_000);
    const started = process.hrtime.bigint();
    expect(await refusal(sanitizeImageInput(bomb, 'image'))).toEqual({ field: 'image', message: ImageInputMessages.tooLarge });
    // A header read; decoding 900 million pixels would take seconds and gigabytes.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
  });

  it('counts pixels apart from the sides: a header under both sides but over the pixel count', async () => {
    const limits = { ...IMAGE_INPUT_LIMITS, maxPixels: 100 };
    expect(await refusal(sanitizeImageInput(await solid(11, 10).png().toBuffer(), 'image', limits))).toEqual({
      field: 'image',
      message: ImageInputMessages.tooLarge,
    });
  });

  it.each([
    ['a GIF', () => solid(8, 8).gif().toBuffer(), ImageInputMessages.notAnImage],
    ['a TIFF', () => solid(8, 8).tiff().toBuffer(), ImageInputMessages.notAnImage],
    ['an SVG', async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>'), ImageInputMessages.notAnImage],
    ['text', async () => Buffer.from('hello, not an image'), ImageInputMessages.notAnImage],
    ['nothing', async () => Buffer.alloc(0), ImageInputMessages.empty],
    ['a truncated PNG', async () => (await solid(64, 64).png().toBuffer()).subarray(0, 80), ImageInputMessages.undecodable],
  ])('refuses %s naming its field', async (_name, make, message) => {
    expect(await refusal(sanitizeImageInput(await make(), 'image[1]'))).toEqual({ field: 'image[1]', message });
  });

  it('refuses a body over the byte limit before reading its header', async () => {
    const limits = { ...IMAGE_INPUT_LIMITS, maxBytes: 50 };
    expect(await refusal(sanitizeImageInput(await solid(64, 64).png().toBuffer(), 'mask', limits))).toEqual({
      field: 'mask',
      message: ImageInputMessages.tooManyBytes,
    });
  });
});

describe('fitEditInputs', () => {
  it('crops the image and its mask alike to the request size, the mask keeping its alpha', async () => {
    // Left half opaque, right half transparent; the image is red left, blue right.
    const left = { left: 0, top: 0 };
    const image = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#0000ff' } })
      .composite([{ input: await solid(100, 100).png().toBuffer(), ...left }])
      .png()
      .toBuffer();
    const mask = await sharp({ create: { width: 200, height: 100, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([
        {
          input: await sharp({ create: { width: 100, height: 100, channels: 4, background: '#000000ff' } })
            .png()
            .toBuffer(),
          ...left,
        },
      ])
      .png()
      .toBuffer();
    const fitted = await fitEditInputs({ images: [image], mask }, { width: 64, height: 64 });
    expect(fitted.images).toHaveLength(1);
    const img = await sharp(fitted.images[0]).raw().toBuffer({ resolveWithObject: true });
    const msk = await sharp(fitted.mask!).raw().toBuffer({ resolveWithObject: true });
    expect([img.info.width, img.info.height, msk.info.width, msk.info.height]).toEqual([64, 64, 64, 64]);
    expect(msk.info.channels).toBe(4);
    // A centre crop of 200×100 to a square keeps x 50..150: the border at x = 100 lands at 32 in both.
    const alphaAt = (x: number) => msk.data[(32 * 64 + x) * 4 + 3];
    const greenAt = (x: number) => img.data[(32 * 64 + x) * img.info.channels + 1];
    expect([alphaAt(5), alphaAt(58)]).toEqual([255, 0]);
    expect(greenAt(5)).toBeGreaterThan(150);
    expect(greenAt(58)).toBeLessThan(50);
  });
});
