import { IMAGE_INPUT_LIMITS, ImageInputMessages } from '@promptpix/contracts';
import { editRefusal, editSizeOf, fitsUploadBudget, inputProblem, maskProblem, uploadExpiry, uploadStorageKey, upscaledSize } from './image-inputs';

const MiB = 1024 * 1024;

describe('inputProblem: what a file may be before any pixel is decoded', () => {
  it.each([
    ['a 1024×768 PNG', 10_000, { format: 'png', width: 1024, height: 768 }, null],
    ['a JPEG at the side limit', 10_000, { format: 'jpeg', width: 4096, height: 4096 }, null],
    ['a WebP', 10_000, { format: 'webp', width: 300, height: 200 }, null],
    ['no bytes', 0, { format: 'png', width: 10, height: 10 }, ImageInputMessages.empty],
    ['one byte over the byte limit', IMAGE_INPUT_LIMITS.maxBytes + 1, { format: 'png', width: 10, height: 10 }, ImageInputMessages.tooManyBytes],
    ['bytes are checked before the header is trusted', IMAGE_INPUT_LIMITS.maxBytes + 1, null, ImageInputMessages.tooManyBytes],
    ['no header (not an image)', 100, null, ImageInputMessages.notAnImage],
    ['a GIF', 100, { format: 'gif', width: 10, height: 10 }, ImageInputMessages.notAnImage],
    ['an SVG', 100, { format: 'svg', width: 10, height: 10 }, ImageInputMessages.notAnImage],
    ['a TIFF', 100, { format: 'tiff', width: 10, height: 10 }, ImageInputMessages.notAnImage],
    ['a header with no size', 100, { format: 'png' }, ImageInputMessages.undecodable],
    ['a PNG claiming 30000×30000 (decompression bomb)', 600, { format: 'png', width: 30_000, height: 30_000 }, ImageInputMessages.tooLarge],
    ['one side over the limit', 100, { format: 'png', width: 4097, height: 16 }, ImageInputMessages.tooLarge],
    ['the other side over the limit', 100, { format: 'webp', width: 16, height: 4097 }, ImageInputMessages.tooLarge],
  ])('%s → %s', (_name, bytes, header, problem) => {
    expect(inputProblem(bytes, header)).toBe(problem);
  });

  it('the pixel count is its own limit, below the sides', () => {
    const limits = { ...IMAGE_INPUT_LIMITS, maxPixels: 1000 * 1000 };
    expect(inputProblem(100, { format: 'png', width: 1000, height: 1000 }, limits)).toBeNull();
    expect(inputProblem(100, { format: 'png', width: 1000, height: 1001 }, limits)).toBe(ImageInputMessages.tooLarge);
  });
});

describe('maskProblem: OpenAI convention, same size as the image', () => {
  const image = { width: 512, height: 384 };
  it.each([
    ['alpha, same size', { ...image, hasAlpha: true }, null],
    ['no alpha channel', { ...image, hasAlpha: false }, ImageInputMessages.maskWithoutAlpha],
    ['another width', { width: 513, height: 384, hasAlpha: true }, ImageInputMessages.maskSize({ width: 513, height: 384 }, image)],
    ['another height', { width: 512, height: 512, hasAlpha: true }, ImageInputMessages.maskSize({ width: 512, height: 512 }, image)],
    ['swapped sides', { width: 384, height: 512, hasAlpha: true }, ImageInputMessages.maskSize({ width: 384, height: 512 }, image)],
  ])('%s → %s', (_name, mask, problem) => {
    expect(maskProblem(mask, image)).toBe(problem);
  });

  it('names both sizes', () => {
    expect(maskProblem({ width: 10, height: 20, hasAlpha: true }, { width: 30, height: 40 })).toBe(
      'The mask is 10×20; it must be the size of the image (30×40)',
    );
  });
});

describe('editSizeOf: the size an edit makes from its input (size auto)', () => {
  it.each([
    ['a size a generation may have: itself', { width: 256, height: 256 }, { width: 256, height: 256 }],
    ['landscape, within bounds', { width: 1536, height: 1024 }, { width: 1536, height: 1024 }],
    ['sides rounded to the nearest multiple of 64', { width: 1000, height: 750 }, { width: 1024, height: 768 }],
    ['too large: the longest side down to 2048', { width: 4096, height: 3072 }, { width: 2048, height: 1536 }],
    ['too small: the shortest side up to 256', { width: 300, height: 200 }, { width: 384, height: 256 }],
    ['tiny and square', { width: 64, height: 64 }, { width: 256, height: 256 }],
    ['an extreme ratio: each side kept within 256..2048', { width: 4000, height: 100 }, { width: 2048, height: 256 }],
    ['portrait, too large', { width: 3000, height: 4000 }, { width: 1536, height: 2048 }],
  ])('%s: %o → %o', (_case, input, size) => {
    expect(editSizeOf(input)).toEqual(size);
  });
});

describe('upscaledSize', () => {
  it.each([
    [{ width: 1024, height: 768 }, 2, { width: 2048, height: 1536 }],
    [{ width: 1024, height: 1024 }, 4, { width: 4096, height: 4096 }],
    [{ width: 2048, height: 1024 }, 4, { width: 8192, height: 4096 }],
    [{ width: 4096, height: 256 }, 2, { width: 8192, height: 512 }],
    [{ width: 2048, height: 2112 }, 4, { problem: ImageInputMessages.upscaleTooLarge(8448) }],
    [{ width: 4160, height: 256 }, 2, { problem: ImageInputMessages.upscaleTooLarge(8320) }],
  ] as const)('%o × %i → %o', (source, factor, size) => {
    expect(upscaledSize(source, factor)).toEqual(size);
  });
});

describe('uploads: expiry, budget, key', () => {
  it('expires the TTL after its last use', () => {
    expect(uploadExpiry(new Date('2026-01-01T10:00:00Z'), 24).toISOString()).toBe('2026-01-02T10:00:00.000Z');
    expect(uploadExpiry(new Date('2026-01-01T10:00:00Z'), 1).toISOString()).toBe('2026-01-01T11:00:00.000Z');
  });

  it.each([
    [0, MiB, 256 * MiB, true],
    [255 * MiB, MiB, 256 * MiB, true],
    [255 * MiB, MiB + 1, 256 * MiB, false],
    [256 * MiB, 1, 256 * MiB, false],
    [0, 0, 0, true],
  ])('holding %i, adding %i under %i → %s', (held, bytes, budget, fits) => {
    expect(fitsUploadBudget(held, bytes, budget)).toBe(fits);
  });

  it('keys an upload under its account, by content, as PNG', () => {
    expect(uploadStorageKey('7d4e…', 'ab12')).toBe('uploads/7d4e…/ab12.png');
  });
});

describe('editRefusal', () => {
  it.each([
    ['a model that cannot edit', undefined, { images: 1, mask: false }, { field: 'image', message: 'The model "m" cannot edit images' }],
    [
      'a mask to a model without inpainting',
      { mask: false, maxImages: 1 },
      { images: 1, mask: true },
      { field: 'mask', message: 'The model "m" edits without a mask only' },
    ],
    [
      'more images than it takes',
      { mask: true, maxImages: 1 },
      { images: 2, mask: false },
      { field: 'image', message: 'The model "m" takes at most 1 image per edit' },
    ],
    ['an edit it takes', { mask: true, maxImages: 16 }, { images: 16, mask: true }, null],
    ['no mask to an inpainting model', { mask: true, maxImages: 1 }, { images: 1, mask: false }, null],
  ] as const)('%s', (_case, support, asked, refusal) => {
    expect(editRefusal('m', support, asked)).toEqual(refusal);
  });
});
