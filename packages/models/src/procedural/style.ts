import type { Sharp } from 'sharp';
import { STYLE_RECIPES } from './recipes';
import type { StyleRecipe } from './style-recipe';

export type { StyleRecipe } from './style-recipe';

/** Style name (lower case) → recipe: one per preset (see recipes.ts). A Map, so "constructor" is no style. */
const recipes: ReadonlyMap<string, StyleRecipe> = STYLE_RECIPES;

/** The recipe for a style name, matched case-insensitively; unknown or absent → undefined. */
export const recipeFor = (style: string | undefined): StyleRecipe | undefined => (style === undefined ? undefined : recipes.get(style.trim().toLowerCase()));

/** Applies `recipe` (if any) to a rendered picture, strength clamped to 0..1. */
export const applyRecipe = async (image: Sharp, recipe: StyleRecipe | undefined, strength: number, size: { width: number; height: number }): Promise<Sharp> => {
  if (!recipe) return image;
  const s = Number.isFinite(strength) ? Math.min(1, Math.max(0, strength)) : 1;
  return recipe.apply(image, s, size);
};
