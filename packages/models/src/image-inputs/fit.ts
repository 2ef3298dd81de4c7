import { MAX_UPSCALED_SIDE } from '@promptpix/contracts';
import { loadSharp } from '../sharp';

/** An edit's inputs at the request's size, as the model port takes them (`ModelRequest.edit`). */
export interface FittedEdit {
  images: Buffer[];
  mask?: Buffer;
}

/** Stored inputs are our own sanitised PNGs or our own images (an upscaled one is the largest). */
const STORED_PIXEL_LIMIT = MAX_UPSCALED_SIDE * MAX_UPSCALED_SIDE;

const fit = (input: Buffer, size: { width: number; height: number }) =>
  loadSharp()(input, { failOn: 'error', limitInputPixels: STORED_PIXEL_LIMIT })
    // The centre, not sharp's "attention": the image and its mask are the same size, so the same
    // rule crops both alike and the mask still covers what it covered.
    .resize(size.width, size.height, { fit: 'cover', position: 'centre' });

/**
 * Cover-crops the edited image, its references and its mask to `size` and encodes them as PNG.
 * The mask keeps (or gains) its alpha channel: transparent where the image may change.
 */
export async function fitEditInputs(inputs: { images: Buffer[]; mask?: Buffer }, size: { width: number; height: number }): Promise<FittedEdit> {
  const images = await Promise.all(inputs.images.map((image) => fit(image, size).png({ compressionLevel: 6 }).toBuffer()));
  if (!inputs.mask) return { images };
  const mask = await fit(inputs.mask, size).ensureAlpha().png({ compressionLevel: 6 }).toBuffer();
  return { images, mask };
}
