import type { Sharp } from 'sharp';

/**
 * How a named style changes a rendered picture. A recipe post-processes the rasterised image
 * (blur, posterise, saturation, vignette, paper texture…); `strength` (0..1) scales its effect,
 * 0 meaning "leave it as it is". It may return a new pipeline (for steps sharp cannot chain in
 * one pass, render to a buffer and start again).
 */
export interface StyleRecipe {
  readonly apply: (image: Sharp, strength: number, size: { width: number; height: number }) => Sharp | Promise<Sharp>;
}
