import sharp from 'sharp';
import { encodeImage, ImageDecodeError } from './encode';

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .png({ compressionLevel: 1 })
    .toBuffer();

describe('encodeImage', () => {
  it('fits an image of another size to exactly the size asked for', async () => {
    const encoded = await encodeImage(await png(96, 64), { width: 50, height: 70, format: 'webp' });
    const meta = await sharp(encoded.data).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([50, 70, 'webp']);
    expect(encoded.key).toMatch(/^images\/[0-9a-f]{64}\.webp$/);
  });

  it.each([
    ['png', true],
    ['webp', true],
    ['jpeg', false],
  ] as const)('a transparent background in %s: alpha kept: %s (JPEG flattens it onto white, not black)', async (format, alpha) => {
    const transparent = await sharp({ create: { width: 32, height: 32, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const encoded = await encodeImage(transparent, { width: 32, height: 32, format });
    const { data, info } = await sharp(encoded.data).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels === 4).toBe(alpha);
    if (alpha) expect(data[3]).toBe(0);
    else expect([...data.subarray(0, 3)].every((channel) => channel >= 250)).toBe(true);
  });

  const broken: Array<[string, () => Promise<Buffer>, RegExp]> = [
    ['a truncated PNG', async () => (await png(64, 64)).subarray(0, 4000), /^the image cannot be decoded \(vipspng: libpng read error\)$/],
    [
      'a PNG with flipped bytes',
      async () => {
        const b = Buffer.from(await png(64, 64));
        for (let i = 500; i < b.length; i += 700) b[i] ^= 0xff;
        return b;
      },
      /^the image cannot be decoded \(vipspng: libpng read error\)$/,
    ],
    [
      'bytes that are no image',
      async () => Buffer.from('<html>502 Bad Gateway</html>'),
      /^the image cannot be decoded \(Input buffer contains unsupported image format\)$/,
    ],
  ];
  it.each(broken)('refuses %s with a one-line reason', async (_name, make, message) => {
    const attempt = encodeImage(await make(), { width: 32, height: 32, format: 'png' });
    await expect(attempt).rejects.toBeInstanceOf(ImageDecodeError);
    await expect(attempt).rejects.toThrow(message);
  });
});
