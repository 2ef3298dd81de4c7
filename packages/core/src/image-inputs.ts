/**
 * The rules for images sent in (issue #31), as pure functions: what a file's header may claim
 * before any pixel is decoded, what makes a mask usable, how far an upscale may go, when an upload
 * expires and whether it fits the account's budget. The sharp work is in @promptpix/models
 * (`sanitizeImageInput`), the storage in ./services/upload-service.ts.
 */
import { DIMENSION_LIMITS, IMAGE_INPUT_LIMITS, ImageInputMessages, MAX_UPSCALED_SIDE, type UpscaleFactor } from '@promptpix/contracts';
import type { EditSupport } from './ports/model';

/** Formats taken in; anything else (GIF, TIFF, SVG, HEIF, raw pixels, …) is refused from its header. */
export const INPUT_FORMATS = ['png', 'jpeg', 'webp'] as const;

export interface ImageHeader {
  /** sharp's name of the format (`png`, `jpeg`, `webp`, `gif`, `svg`, …). */
  format?: string;
  width?: number;
  height?: number;
}

export type ImageInputLimits = typeof IMAGE_INPUT_LIMITS;

/** Why a file may not be decoded (by its size in bytes, then its header's format and dimensions), or null. */
export function inputProblem(bytes: number, header: ImageHeader | null, limits: ImageInputLimits = IMAGE_INPUT_LIMITS): string | null {
  if (bytes === 0) return ImageInputMessages.empty;
  if (bytes > limits.maxBytes) return ImageInputMessages.tooManyBytes;
  if (!header?.format || !(INPUT_FORMATS as readonly string[]).includes(header.format)) return ImageInputMessages.notAnImage;
  const { width, height } = header;
  if (!width || !height || width < 1 || height < 1) return ImageInputMessages.undecodable;
  if (width > limits.maxSide || height > limits.maxSide || width * height > limits.maxPixels) return ImageInputMessages.tooLarge;
  return null;
}

export interface InputDimensions {
  width: number;
  height: number;
}

/** Why a stored input cannot be the mask of `image`, or null: OpenAI's convention needs alpha, and the same size. */
export function maskProblem(mask: InputDimensions & { hasAlpha: boolean }, image: InputDimensions): string | null {
  if (!mask.hasAlpha) return ImageInputMessages.maskWithoutAlpha;
  if (mask.width !== image.width || mask.height !== image.height) return ImageInputMessages.maskSize(mask, image);
  return null;
}

/**
 * The size an edit makes when the caller leaves it to the input (OpenAI's `size: auto`): the
 * input's own size when a generation may have it, else scaled (aspect ratio kept) until its longest
 * side is at most 2048 and its shortest at least 256, each side then rounded to a multiple of 64
 * and kept within 256..2048. What the rounding or an extreme aspect ratio leaves over is cropped from
 * the centre when the worker fits the input (`fitEditInputs`).
 */
export function editSizeOf(input: InputDimensions): InputDimensions {
  const { min, max, step } = DIMENSION_LIMITS;
  const shrink = Math.min(1, max / Math.max(input.width, input.height));
  const scale = Math.max(shrink, min / Math.min(input.width, input.height));
  const side = (pixels: number) => Math.min(max, Math.max(min, Math.round((pixels * scale) / step) * step));
  return { width: side(input.width), height: side(input.height) };
}

/** The size of an upscaled image, or why it may not be made. */
export function upscaledSize(source: InputDimensions, factor: UpscaleFactor): InputDimensions | { problem: string } {
  const width = source.width * factor;
  const height = source.height * factor;
  const side = Math.max(width, height);
  return side > MAX_UPSCALED_SIDE ? { problem: ImageInputMessages.upscaleTooLarge(side) } : { width, height };
}

/** An upload expires `ttlHours` after its last use: the upload itself, or an edit that used it. */
export const uploadExpiry = (lastUsedAt: Date, ttlHours: number): Date => new Date(lastUsedAt.getTime() + ttlHours * 3_600_000);

/**
 * Whether an upload of `bytes` fits an account already holding `heldBytes` of live uploads. The
 * store applies the same rule while holding the account's upload lock, so concurrent uploads are
 * counted one after another.
 */
export const fitsUploadBudget = (heldBytes: number, bytes: number, budgetBytes: number): boolean => heldBytes + bytes <= budgetBytes;

/** The storage key of an account's upload: under the account, content-addressed, always PNG (inputs are normalised to it). */
export const uploadStorageKey = (accountId: string, sha256: string): string => `uploads/${accountId}/${sha256}.png`;

/** What one edit asks of a model. */
export interface EditAsked {
  images: number;
  mask: boolean;
}

/**
 * Why `model` cannot make this edit, naming the field at fault, or null. The gateway refuses such a
 * request (400) before anything is charged; the worker checks again, as a model may change between.
 */
export function editRefusal(model: string, support: EditSupport | undefined, asked: EditAsked): { field: 'image' | 'mask'; message: string } | null {
  if (!support) return { field: 'image', message: ImageInputMessages.modelCannotEdit(model) };
  if (asked.mask && !support.mask) return { field: 'mask', message: ImageInputMessages.modelTakesNoMask(model) };
  if (asked.images > support.maxImages) return { field: 'image', message: ImageInputMessages.modelTakesFewerImages(model, support.maxImages) };
  return null;
}
