import { createHash } from 'node:crypto';
import { loadSharp } from './sharp';
import type { ImageFormat } from '@promptpix/contracts';

export const CONTENT_TYPES: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };
const EXTENSIONS: Record<ImageFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };

export interface EncodedImage {
  data: Buffer;
  contentType: string;
  /** Content-addressed object key: images/<sha256>.<ext> */
  key: string;
}

/** Bytes that are not a whole, valid image (truncated, corrupted, not an image at all). */
export class ImageDecodeError extends Error {
  override name = 'ImageDecodeError';
}

/** Cover-crops to exactly width×height and encodes (alpha kept in PNG and WebP, flattened onto white in JPEG). A broken input fails here, not the process. */
export async function encodeImage(input: Buffer, target: { width: number; height: number; format: ImageFormat }): Promise<EncodedImage> {
  const pipeline = loadSharp()(input, { failOn: 'error' }).resize(target.width, target.height, { fit: 'cover', position: 'attention' });
  // PNG and WebP keep an alpha channel (a transparent background); JPEG has none, so transparency
  // is flattened onto white (libvips would otherwise make it black).
  const encoded =
    target.format === 'png'
      ? pipeline.png({ compressionLevel: 6 })
      : target.format === 'jpeg'
        ? pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 85, mozjpeg: false })
        : pipeline.webp({ quality: 80, effort: 2 });
  let data: Buffer;
  try {
    data = await encoded.toBuffer();
  } catch (error) {
    // libvips adds a second line about the output ("unable to write to target"), which reads like a
    // storage failure; the cause is the input.
    throw new ImageDecodeError(`the image cannot be decoded (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
  const hash = createHash('sha256').update(data).digest('hex');
  return { data, contentType: CONTENT_TYPES[target.format], key: `images/${hash}.${EXTENSIONS[target.format]}` };
}
