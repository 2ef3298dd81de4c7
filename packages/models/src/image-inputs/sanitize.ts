import { createHash } from 'node:crypto';
import { IMAGE_INPUT_LIMITS, ImageInputMessages } from '@promptpix/contracts';
import { fieldError, type ImageInputLimits, inputProblem } from '@promptpix/core';
import { loadSharp } from '../sharp';

/** An image sent in, made safe to store and to hand to a backend: PNG, upright, no metadata. */
export interface SanitizedImage {
  /** PNG with no EXIF, XMP, ICC profile or text chunks; EXIF orientation applied to the pixels. */
  data: Buffer;
  width: number;
  height: number;
  hasAlpha: boolean;
  /** sha256 (hex) of `data`. */
  sha256: string;
}

/**
 * Raw bytes from a caller → a sanitised PNG, or a 400 naming `field` (`image`, `image[1]`, `mask`).
 * Hostile input is refused as cheaply as it can be: the byte count first, then the header alone
 * (sharp's `metadata()` decodes no pixel), so a PNG of a few kB claiming 30000×30000 costs a
 * header read. Only then is the image decoded, with sharp's own pixel limit as a second guard and
 * `failOn: 'error'` so a truncated or corrupt file is refused rather than half-read.
 */
export async function sanitizeImageInput(input: Buffer, field: string, limits: ImageInputLimits = IMAGE_INPUT_LIMITS): Promise<SanitizedImage> {
  const sharp = loadSharp();
  const sized = inputProblem(input.length, { format: 'png', width: 1, height: 1 }, limits);
  if (sized) throw fieldError(field, sized);
  const header = await sharp(input, { limitInputPixels: false })
    .metadata()
    .catch(() => null);
  const problem = inputProblem(input.length, header, limits);
  if (problem) throw fieldError(field, problem);
  try {
    // Re-encoding drops every metadata block (sharp keeps none unless asked to), converting to sRGB.
    const { data, info } = await sharp(input, { failOn: 'error', limitInputPixels: limits.maxPixels, pages: 1 })
      .autoOrient()
      .png({ compressionLevel: 6 })
      .toBuffer({ resolveWithObject: true });
    return {
      data,
      width: info.width,
      height: info.height,
      hasAlpha: info.channels === 4 || info.channels === 2,
      sha256: createHash('sha256').update(data).digest('hex'),
    };
  } catch {
    throw fieldError(field, ImageInputMessages.undecodable);
  }
}
