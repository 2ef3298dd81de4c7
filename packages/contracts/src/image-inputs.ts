/**
 * Images sent in (issue #31): edits with a mask, uploads, upscaling, transparent backgrounds.
 * The wire shapes and the exact messages; the rules are in @promptpix/core and @promptpix/models.
 */
import { z } from 'zod';

/** `transparent`: an alpha background where the backend can draw one (PNG and WebP keep it; JPEG is flattened onto white). */
export const backgroundModes = ['auto', 'opaque', 'transparent'] as const;
export type Background = (typeof backgroundModes)[number];

export const upscaleFactors = [2, 4] as const;
export type UpscaleFactor = (typeof upscaleFactors)[number];

/** Limits on one image sent in, checked from its header before any pixel is decoded. */
export const IMAGE_INPUT_LIMITS = {
  /** Bytes of one file as sent. */
  maxBytes: 25 * 1024 * 1024,
  /** Longest side, in pixels. */
  maxSide: 4096,
  /** Width × height: 4096 × 4096. A PNG of a few kB can claim billions (a decompression bomb). */
  maxPixels: 4096 * 4096,
} as const;

/** Images one edit may start from: the image edited and up to three references. */
export const MAX_EDIT_IMAGES = 4;

/** The longest side an upscaled image may have. */
export const MAX_UPSCALED_SIDE = 8192;

/** Exact messages of images sent in, named by the field they are about. */
export const ImageInputMessages = {
  notAnImage: 'Expected a PNG, JPEG or WebP image',
  empty: 'The image is empty',
  tooManyBytes: `Image larger than ${IMAGE_INPUT_LIMITS.maxBytes / (1024 * 1024)} MiB`,
  tooLarge: `Image larger than ${IMAGE_INPUT_LIMITS.maxSide}×${IMAGE_INPUT_LIMITS.maxSide} pixels`,
  undecodable: 'The image cannot be decoded',
  maskWithoutAlpha: 'A mask must have an alpha channel: transparent where the image may change',
  maskSize: (mask: { width: number; height: number }, image: { width: number; height: number }) =>
    `The mask is ${mask.width}×${mask.height}; it must be the size of the image (${image.width}×${image.height})`,
  maskNotUpload: 'A mask must be an upload (POST /api/v1/uploads)',
  maskWithoutImage: 'A mask needs an image to apply to',
  unknownInput: 'No upload or image of yours has this id',
  uploadBudget: (budgetBytes: number) =>
    `Your uploads would pass this account's storage budget of ${Math.round(budgetBytes / (1024 * 1024))} MiB; uploads expire when unused, or reuse an upload's id`,
  upscaleTooLarge: (side: number) => `The upscaled image would be ${side} pixels on a side; at most ${MAX_UPSCALED_SIDE}`,
  instantTakesNoImage: 'Instant mode matches a prompt to the shared library; it takes no image',
  inputGone: 'The uploaded image is gone (uploads expire when unused): upload it again',
  modelCannotEdit: (model: string) => `The model "${model}" cannot edit images`,
  modelTakesNoMask: (model: string) => `The model "${model}" edits without a mask only`,
  modelTakesFewerImages: (model: string, most: number) => `The model "${model}" takes at most ${most} image${most === 1 ? '' : 's'} per edit`,
} as const;

/** Answer of POST /api/v1/uploads (201). */
export const uploadSchema = z.object({
  id: z.uuid().meta({ description: 'Pass it as `image` or `mask` to POST /api/v1/generate' }),
  width: z.number().int(),
  height: z.number().int(),
  bytes: z.number().int().meta({ description: 'Bytes stored (the PNG the upload was normalised to), counted against the account’s upload budget' }),
  expiresAt: z.iso.datetime().meta({ description: 'Unused until then, the upload is deleted; every edit that uses it moves this on' }),
});
export type Upload = z.infer<typeof uploadSchema>;

/** Body of POST /api/v1/image/:id/upscale. */
export const upscaleBodySchema = z.object({
  factor: z
    .union([z.literal(2), z.literal(4)], { error: 'Expected 2 or 4' })
    .default(2)
    .meta({ description: 'How many times wider and taller: 2 or 4' }),
});
export type UpscaleBody = z.infer<typeof upscaleBodySchema>;

/** One stored input of an edit, as a job carries it: where the worker reads it and what it hashes to. */
export interface StoredInput {
  /** The object the worker reads (`uploads/<accountId>/<sha256>.png`, or an image's `images/<sha256>.<ext>`). */
  storageKey: string;
  /** sha256 (hex) of the stored bytes: part of the render-cache key. */
  sha256: string;
  width: number;
  height: number;
  /** Set when the input is an upload: its expiry moves on while edits use it. */
  uploadId?: string;
}

/** An edit's inputs on a generation request: the image edited (first), more reference images, and a mask. */
export interface EditInputRef {
  images: StoredInput[];
  mask?: StoredInput;
}
