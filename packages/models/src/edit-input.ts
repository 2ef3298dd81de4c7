/**
 * What every adapter does with an edit's input: checks it against what the model takes, and reads
 * or converts the mask (OpenAI's convention: alpha 0 where the image may change).
 */
import type { EditInput, EditSupport } from '@promptpix/core';
import { PermanentModelError } from './providers/errors';
import { loadSharp } from './sharp';

/** An edit the model cannot make is the request's fault: a PermanentModelError saying which part. */
export function checkEdit(provider: string, support: EditSupport | undefined, edit: EditInput): void {
  if (!support) throw new PermanentModelError(`${provider}: this model cannot edit images`);
  if (edit.images.length === 0) throw new PermanentModelError(`${provider}: an edit needs the image to edit`);
  if (edit.mask && !support.mask) throw new PermanentModelError(`${provider}: this model cannot edit with a mask`);
  if (edit.images.length > support.maxImages) {
    throw new PermanentModelError(
      `${provider}: this model takes at most ${support.maxImages} image${support.maxImages === 1 ? '' : 's'} per edit, got ${edit.images.length}`,
    );
  }
}

/**
 * The mask's alpha at width×height, one byte a pixel: 0 where the image may change, 255 where it
 * stays. A mask without an alpha channel is opaque everywhere: nothing may change.
 */
export async function maskAlpha(provider: string, mask: Buffer, width: number, height: number): Promise<Buffer> {
  try {
    const image = loadSharp()(mask, { failOn: 'error' });
    const meta = await image.metadata();
    const sized = meta.width === width && meta.height === height ? image : image.resize(width, height, { fit: 'fill' });
    return await sized.ensureAlpha().extractChannel(3).raw().toBuffer();
  } catch (error) {
    throw new PermanentModelError(`${provider}: the mask cannot be read (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
}

/**
 * The mask as the Stable Diffusion backends take it (A1111's `mask`, most Replicate inpainting
 * models): a greyscale PNG of the image's size, white where the image may change, black where it
 * stays (255 − alpha).
 */
export async function whiteRepaintsMask(provider: string, mask: Buffer): Promise<Buffer> {
  let size: { width?: number; height?: number };
  try {
    size = await loadSharp()(mask, { failOn: 'error' }).metadata();
  } catch (error) {
    throw new PermanentModelError(`${provider}: the mask cannot be read (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
  const { width = 1, height = 1 } = size;
  const alpha = await maskAlpha(provider, mask, width, height);
  for (let i = 0; i < alpha.length; i++) alpha[i] = 255 - alpha[i];
  return loadSharp()(alpha, { raw: { width, height, channels: 1 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}
