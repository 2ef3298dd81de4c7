/**
 * The built-in model's edits: the prompt's scene, rendered at the input's size, painted into the
 * input. With a mask, only where the mask is transparent (its edge softened inwards, so pixels
 * under the opaque part are never touched); without, over the whole input, restyled first. In both
 * cases `strength` is how much of the scene goes in (0 keeps the input, 1 repaints fully).
 */
import type { EditInput, ModelImage, ModelRequest } from '@promptpix/core';
import { maskAlpha } from '../edit-input';
import { PermanentModelError } from '../providers/errors';
import { loadSharp } from '../sharp';
import { applyRecipe, recipeFor } from './style';

interface Size {
  width: number;
  height: number;
}

/** The image as RGBA bytes at `size`: exactly its own pixels when it already has that size. */
async function rgbaAt(image: Buffer, size: Size, what: string): Promise<Buffer> {
  try {
    const pipeline = loadSharp()(image, { failOn: 'error' });
    const meta = await pipeline.metadata();
    const sized = meta.width === size.width && meta.height === size.height ? pipeline : pipeline.resize(size.width, size.height, { fit: 'fill' });
    return await sized.ensureAlpha().raw().toBuffer();
  } catch (error) {
    throw new PermanentModelError(`procedural: the ${what} cannot be read (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
}

/** The style's recipe applied to RGBA bytes at `strength`, the input's alpha kept. */
async function restyle(rgba: Buffer, request: ModelRequest, strength: number): Promise<Buffer> {
  const recipe = recipeFor(request.style);
  const size = { width: request.width, height: request.height };
  if (!recipe || strength === 0) return rgba;
  const styled = await applyRecipe(loadSharp()(rgba, { raw: { ...size, channels: 4 } }), recipe, strength, size);
  const out = await styled.ensureAlpha().raw().toBuffer();
  for (let i = 3; i < out.length; i += 4) out[i] = rgba[i];
  return out;
}

/**
 * How much each pixel may change, 0..255, from the mask's alpha: 255 − alpha, softened at the
 * edge of the transparent area but never raised above it (an opaque pixel stays 0).
 */
async function changeWeights(alpha: Buffer, size: Size): Promise<Buffer> {
  const weight = Buffer.from(alpha.map((a) => 255 - a));
  const sigma = Math.max(1, Math.min(size.width, size.height) / 128);
  const blurred = await loadSharp()(weight, { raw: { ...size, channels: 1 } })
    .blur(sigma)
    .extractChannel(0)
    .raw()
    .toBuffer();
  for (let i = 0; i < weight.length; i++) weight[i] = Math.min(weight[i], blurred[i]);
  return weight;
}

/** `base` and `over` mixed pixel by pixel by `t` (premultiplied, so transparent pixels add no colour); t = 0 copies `base` exactly. */
function mixRgba(base: Buffer, over: Buffer, t: (pixel: number) => number): Buffer {
  const out = Buffer.alloc(base.length);
  for (let p = 0, i = 0; i < base.length; p++, i += 4) {
    const k = t(p);
    if (k === 0) {
      base.copy(out, i, i, i + 4);
      continue;
    }
    const a1 = base[i + 3];
    const a2 = over[i + 3];
    const a = a1 + (a2 - a1) * k;
    for (let c = 0; c < 3; c++) out[i + c] = a === 0 ? 0 : Math.round((base[i + c] * a1 * (1 - k) + over[i + c] * a2 * k) / a);
    out[i + 3] = Math.round(a);
  }
  return out;
}

/** Edits `edit.images[0]` with the scene `render` draws for the request (without the edit). */
export async function editProcedural(request: ModelRequest, edit: EditInput, render: (request: ModelRequest) => Promise<ModelImage>): Promise<ModelImage> {
  const size = { width: request.width, height: request.height };
  const strength = Number.isFinite(request.strength) ? Math.min(1, Math.max(0, request.strength)) : 1;
  const input = await rgbaAt(edit.images[0], size, 'image to edit');
  const drawn = await render({ ...request, edit: undefined });
  const scene = await rgbaAt(drawn.data, size, 'scene');
  let mixed: Buffer;
  if (edit.mask) {
    const weights = await changeWeights(await maskAlpha('procedural', edit.mask, size.width, size.height), size);
    mixed = mixRgba(input, scene, (p) => (weights[p] / 255) * strength);
  } else {
    mixed = mixRgba(await restyle(input, request, strength), scene, () => strength);
  }
  const { data, info } = await loadSharp()(mixed, { raw: { ...size, channels: 4 } })
    .png({ compressionLevel: 1 })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, ...(drawn.revisedPrompt === undefined ? {} : { revisedPrompt: drawn.revisedPrompt }) };
}
