import { crc32 } from 'node:zlib';
import sharp from 'sharp';

/** A real 1×1 PNG whose IHDR is rewritten to claim `width`×`height` (CRC fixed): a decompression bomb's header, under 100 bytes. */
export async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(
    await sharp({ create: { width: 1, height: 1, channels: 3, background: '#0ac81e' } })
      .png()
      .toBuffer(),
  );
  // Signature (8), IHDR length (4), "IHDR" (4), then width and height; the CRC covers type + data (17 bytes).
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

/** A flat-coloured JPEG photo, `width`×`height`. */
export const solidPhoto = (color: string, width = 256, height = 256): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: color } })
    .jpeg()
    .toBuffer();

/** A mask in OpenAI's convention: transparent on the left half (may change), opaque on the right (kept). */
export const leftHalfMask = (width = 256, height = 256): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } })
    .composite([
      { input: { create: { width: width / 2, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } }, left: 0, top: 0, blend: 'dest-out' },
    ])
    .png()
    .toBuffer();
