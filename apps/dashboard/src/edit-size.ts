/**
 * The size the playground asks an edit for: the image's own when the API takes it (each side 256 to
 * 2048, a multiple of 64), else the nearest such size of the same shape. The worker crops the
 * image to the size asked from its centre, so a size of another shape would cut the image.
 */
const STEP = 64;
const MIN_SIDE = 256;
const MAX_SIDE = 2048;

export function editSize(width: number, height: number): { width: number; height: number } {
  let scale = 1;
  if (Math.max(width, height) > MAX_SIDE) scale = MAX_SIDE / Math.max(width, height);
  if (Math.min(width, height) * scale < MIN_SIDE) scale = MIN_SIDE / Math.min(width, height);
  const side = (n: number) => Math.min(MAX_SIDE, Math.max(MIN_SIDE, Math.round((n * scale) / STEP) * STEP));
  return { width: side(width), height: side(height) };
}
