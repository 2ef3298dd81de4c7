import type { Sharp } from 'sharp';
import { STYLE_RECIPES } from './recipes';

/**
 * How a named style changes a rendered picture. A recipe post-processes the rasterised image
 * (blur, posterise, saturation, vignette, paper texture…); `strength` (0..1) scales its effect,
 * 0 meaning "leave it as it is". It may return a new pipeline (for steps sharp cannot chain in
 * one pass, render to a buffer and start again).
 */
export interface StyleRecipe {
  readonly apply: (image: Sharp, strength: number, size: { width: number; height: number }) => Sharp | Promise<Sharp>;
}

/** Style name (lower case) → recipe: one per preset (see recipes.ts). A Map, so "constructor" is no style. */
const recipes: ReadonlyMap<string, StyleRecipe> = STYLE_RECIPES;

/** The recipe for a style name, matched case-insensitively; unknown or absent → undefined. */
export const recipeFor = (style: string | undefined): StyleRecipe | undefined =>
  style === undefined ? undefined : recipes.get(style.trim().toLowerCase());

/** Applies `recipe` (if any) to a rendered picture, strength clamped to 0..1. */
export const applyRecipe = async (
  image: Sharp,
  recipe: StyleRecipe | undefined,
  strength: number,
  size: { width: number; height: number },
): Promise<Sharp> => {
  if (!recipe) return image;
  const s = Number.isFinite(strength) ? Math.min(1, Math.max(0, strength)) : 1;
  return recipe.apply(image, s, size);
};
