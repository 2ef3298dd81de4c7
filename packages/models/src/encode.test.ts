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
