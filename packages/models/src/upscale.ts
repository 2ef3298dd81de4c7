/**
 * Upscaling without a backend's upscaler (the worker's fallback), and the size rule every upscaler
 * shares: factor× each side, at most MAX_UPSCALED_SIDE.
 */
import type { ModelImage } from '@promptpix/core';
import { ImageDecodeError } from './encode';
import { PermanentModelError } from './providers/errors';
import { loadSharp } from './sharp';

/** The longest side an upscale may produce: 8192 px (64 megapixels of RGBA is 256 MiB raw). */
export const MAX_UPSCALED_SIDE = 8192;

/** width×factor by height×factor; a PermanentModelError when a side would pass MAX_UPSCALED_SIDE. */
export function upscaledSize(width: number, height: number, factor: 2 | 4): { width: number; height: number } {
  const target = { width: width * factor, height: height * factor };
  if (Math.max(target.width, target.height) > MAX_UPSCALED_SIDE) {
    throw new PermanentModelError(
      `upscale: ${factor}× of ${width}×${height} would be ${target.width}×${target.height}, larger than ${MAX_UPSCALED_SIDE} px on a side`,
    );
  }
  return target;
}

async function sizeOf(image: Buffer): Promise<{ width: number; height: number }> {
  try {
    const { width, height } = await loadSharp()(image, { failOn: 'error' }).metadata();
    if (!width || !height) throw new Error('no dimensions');
    return { width, height };
  } catch (error) {
    throw new ImageDecodeError(`the image cannot be decoded (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
}

/** Resizes to exactly width×height (lanczos3, a mild sharpen), as PNG; alpha is kept. */
async function resizeTo(image: Buffer, width: number, height: number): Promise<ModelImage> {
  const { data, info } = await loadSharp()(image, { failOn: 'error' })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .sharpen({ sigma: 0.5 })
    .png({ compressionLevel: 1 })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The fallback upscaler: lanczos3 resampling to factor× each side (at most MAX_UPSCALED_SIDE). */
export async function resampleUpscale(image: Buffer, factor: 2 | 4): Promise<ModelImage> {
  const { width, height } = await sizeOf(image);
  const target = upscaledSize(width, height, factor);
  return resizeTo(image, target.width, target.height);
}

/** A backend's upscale, made exactly the size asked for (an upscaler model of a fixed scale may answer another). */
export async function fitUpscaled(image: ModelImage, target: { width: number; height: number }): Promise<ModelImage> {
  if (image.width === target.width && image.height === target.height) return image;
  return resizeTo(image.data, target.width, target.height);
}
