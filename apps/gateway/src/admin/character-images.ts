import { createHash } from 'node:crypto';
import { fieldError, type Storage } from '@promptpix/core';
import { loadSharp } from '@promptpix/models';

const MAX_BYTES = 8 * 1024 * 1024;
const MAX_SIDE = 4096;
const FORMATS: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/** base64, or a data: URL, to bytes. */
function decode(value: string): Buffer | null {
  const match = /^data:image\/[a-z+.-]+;base64,(.*)$/is.exec(value);
  const b64 = (match ? match[1] : value).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return null;
  return Buffer.from(b64, 'base64');
}

/**
 * Validates reference images with sharp (PNG/JPEG/WebP, size-limited) and stores them
 * content-addressed. Returns their storage keys, in order. A bad image is a 400 naming it.
 */
export async function storeReferenceImages(storage: Storage, images: string[]): Promise<string[]> {
  const keys: string[] = [];
  for (const [index, value] of images.entries()) {
    const field = `images.${index}`;
    const bytes = decode(value);
    if (!bytes || bytes.length === 0) throw fieldError(field, 'Expected a base64 image or a data: URL');
    if (bytes.length > MAX_BYTES) throw fieldError(field, 'Image larger than 8 MB');
    const meta = await loadSharp()(bytes, { failOn: 'error' })
      .metadata()
      .catch(() => null);
    if (!meta?.format || !(meta.format in FORMATS)) throw fieldError(field, 'Expected a PNG, JPEG or WebP image');
    if ((meta.width ?? 0) > MAX_SIDE || (meta.height ?? 0) > MAX_SIDE) throw fieldError(field, `Image larger than ${MAX_SIDE}×${MAX_SIDE}`);
    const key = `references/${createHash('sha256').update(bytes).digest('hex')}.${meta.format === 'jpeg' ? 'jpg' : meta.format}`;
    await storage.put(key, bytes, FORMATS[meta.format]);
    keys.push(key);
  }
  return keys;
}
