/**
 * Upscaling without a backend's upscaler (the worker's fallback), and the size rule every upscaler
 * shares: factor× each side, at most MAX_UPSCALED_SIDE.
 */
import { type ModelImage, upscaledSize } from '@promptpix/core';
import { ImageDecodeError } from './encode';
import { PermanentModelError } from './providers/errors';
import { loadSharp } from './sharp';

/** width×factor by height×factor (core's `upscaledSize` rule); a PermanentModelError past MAX_UPSCALED_SIDE. */
export function upscaleTarget(width: number, height: number, factor: 2 | 4): { width: number; height: number } {
  const target = upscaledSize({ width, height }, factor);
  if ('problem' in target) throw new PermanentModelError(`upscale: ${target.problem}`);
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
  const target = upscaleTarget(width, height, factor);
  return resizeTo(image, target.width, target.height);
}

/** A backend's upscale, made exactly the size asked for (an upscaler model of a fixed scale may answer another). */
export async function fitUpscaled(image: ModelImage, target: { width: number; height: number }): Promise<ModelImage> {
  if (image.width === target.width && image.height === target.height) return image;
  return resizeTo(image.data, target.width, target.height);
}
