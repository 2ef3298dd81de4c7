import { MAX_DERIVED_PER_IMAGE, cacheKeyOf, cacheKeyString, decideFromCache, flightKeyOf, inputKeyOf, mayDerive, type CachedImage } from './render-cache';

let n = 0;
const image = (o: Partial<CachedImage>): CachedImage => ({
  id: `img-${++n}`,
  storageKey: `images/${n}.webp`,
  width: 1024,
  height: 1024,
  format: 'webp',
  sourceImageId: null,
  rejected: false,
  createdAt: new Date(2026, 0, 1, 0, n),
  seed: n,
  derivedSizes: 0,
  ...o,
});
const wanted = { width: 1024, height: 1024, format: 'webp' };

describe('decideFromCache', () => {
  const original = image({});
  const rejected = image({ rejected: true });
  const pngVariant = image({ format: 'png', sourceImageId: original.id });
  const orphanVariant = image({ format: 'jpeg', sourceImageId: rejected.id });

  it.each([
    ['nothing stored', [], wanted, 'miss', null],
    ['the original matches', [original], wanted, 'exact', original.id],
    ['a stored variant matches', [original, pngVariant], { ...wanted, format: 'png' }, 'exact', pngVariant.id],
    ['another size of an original', [original], { ...wanted, width: 512 }, 'derive', original.id],
    ['only a rejected original', [rejected], wanted, 'miss', null],
    ['a variant of a rejected original is not served', [rejected, orphanVariant, original], { ...wanted, format: 'jpeg' }, 'derive', original.id],
    ['a variant alone (original gone) is a miss', [pngVariant], { ...wanted, format: 'png' }, 'miss', null],
  ])('%s → %s', (_name, candidates, want, kind, id) => {
    const decision = decideFromCache(candidates as CachedImage[], want);
    expect(decision.kind).toBe(kind);
    if (decision.kind === 'exact') expect(decision.image.id).toBe(id);
    if (decision.kind === 'derive') expect(decision.source.id).toBe(id);
  });

  it.each([
    [0, true],
    [MAX_DERIVED_PER_IMAGE - 1, true],
    [MAX_DERIVED_PER_IMAGE, false],
    [MAX_DERIVED_PER_IMAGE + 5, false],
  ])('an original holding %i derived places may derive another: %s', (taken, may) => {
    expect(mayDerive(taken)).toBe(may);
  });

  it(`derives at most ${MAX_DERIVED_PER_IMAGE} sizes from one original, by its count of places; the next new size is a miss (a charged generation)`, () => {
    const source = image({ derivedSizes: MAX_DERIVED_PER_IMAGE - 1 });
    const full = { ...source, derivedSizes: MAX_DERIVED_PER_IMAGE };
    // The count decides, not how many variants this read happened to return.
    const variants = Array.from({ length: 3 }, (_, i) => image({ width: 300 + i, sourceImageId: source.id }));
    expect(decideFromCache([source, ...variants], { ...wanted, width: 999 })).toEqual({ kind: 'derive', source });
    expect(decideFromCache([full, ...variants], { ...wanted, width: 999 })).toEqual({ kind: 'miss' });
    // Stored sizes and the original's own size are still served.
    expect(decideFromCache([full, ...variants], { ...wanted, width: 301 })).toEqual({ kind: 'exact', image: variants[1] });
    expect(decideFromCache([...variants, full], wanted)).toEqual({ kind: 'exact', image: full });
  });

  it('prefers the newest original', () => {
    const older = image({ createdAt: new Date(2025, 0, 1) });
    const newer = image({ createdAt: new Date(2026, 5, 1) });
    const decision = decideFromCache([older, newer], wanted);
    expect(decision).toEqual({ kind: 'exact', image: newer });
  });
});

describe('cache keys', () => {
  it('normalises the prompt and keeps case', () => {
    expect(cacheKeyOf('a', { prompt: '  A  Cat ' })).toEqual({
      accountId: 'a',
      normalizedPrompt: 'A Cat',
      style: null,
      characterId: null,
      ageBucket: null,
      seed: null,
      negativePrompt: null,
      model: null,
      inputKey: null,
    });
    expect(cacheKeyOf('a', { prompt: 'cat', seed: 0, negativePrompt: ' no  dogs ' })).toMatchObject({ seed: 0, negativePrompt: 'no dogs' });
  });
  it.each([
    [{ prompt: 'cat' }, { prompt: ' cat  ' }, true],
    [{ prompt: 'cat' }, { prompt: 'Cat' }, false],
    [{ prompt: 'cat' }, { prompt: 'cat', style: 'watercolor' }, false],
    [{ prompt: 'cat', ageBucket: 'kids' as const }, { prompt: 'cat' }, false],
    [{ prompt: 'cat', seed: 1 }, { prompt: 'cat', seed: 2 }, false],
    [{ prompt: 'cat', negativePrompt: 'dogs' }, { prompt: 'cat' }, false],
    [{ prompt: 'cat', model: 'gpu' }, { prompt: 'cat' }, false],
    [{ prompt: 'cat', model: 'gpu' }, { prompt: 'cat', model: 'hosted' }, false],
  ])('flight keys of %j and %j equal: %s', (a, b, same) => {
    expect(flightKeyOf(cacheKeyOf('acc', a), wanted) === flightKeyOf(cacheKeyOf('acc', b), wanted)).toBe(same);
  });
  it.each([
    [{ prompt: 'cat' }, { prompt: ' cat  ' }, true],
    [{ prompt: 'cat', style: 'watercolor' }, { prompt: 'cat', style: 'watercolor' }, true],
    [{ prompt: 'cat' }, { prompt: 'cat', style: 'watercolor' }, false],
    [{ prompt: 'cat', style: 'anime' }, { prompt: 'cat', character: 'anime' }, false],
    [{ prompt: 'cat a' }, { prompt: 'cat', style: 'a' }, false],
    [{ prompt: 'cat', ageBucket: 'kids' as const }, { prompt: 'cat' }, false],
    [{ prompt: 'cat', character: '0B6C8A4E-2F1D-4C3B-9A7E-5D4C3B2A1F00' }, { prompt: 'cat', character: '0b6c8a4e-2f1d-4c3b-9a7e-5d4c3b2a1f00' }, true],
    [{ prompt: 'cat', seed: 7 }, { prompt: 'cat', seed: 7 }, true],
    [{ prompt: 'cat', model: 'gpu' }, { prompt: 'cat', model: 'gpu' }, true],
    [{ prompt: 'cat', model: 'gpu' }, { prompt: 'cat' }, false],
    [{ prompt: 'cat', seed: 7 }, { prompt: 'cat' }, false],
    [{ prompt: 'cat', seed: 0 }, { prompt: 'cat' }, false],
    [{ prompt: 'cat', negativePrompt: 'dogs' }, { prompt: 'cat', negativePrompt: ' dogs ' }, true],
    [{ prompt: 'cat', negativePrompt: 'dogs' }, { prompt: 'cat' }, false],
    [{ prompt: 'cat', negativePrompt: 'x' }, { prompt: 'cat', style: 'x' }, false],
  ])('key strings of %j and %j equal: %s', (a, b, same) => {
    expect(cacheKeyString(cacheKeyOf('acc', a)) === cacheKeyString(cacheKeyOf('acc', b))).toBe(same);
  });
  it('flight keys differ per account and per variant', () => {
    const key = cacheKeyOf('acc', { prompt: 'cat' });
    expect(flightKeyOf(key, wanted)).not.toBe(flightKeyOf(cacheKeyOf('other', { prompt: 'cat' }), wanted));
    expect(flightKeyOf(key, wanted)).not.toBe(flightKeyOf(key, { ...wanted, format: 'png' }));
  });
});

describe('the cache key of an edit or a background (inputKeyOf)', () => {
  const input = (sha: string, uploadId?: string) => ({
    storageKey: `uploads/acc/${sha}.png`,
    sha256: sha,
    width: 64,
    height: 64,
    ...(uploadId && { uploadId }),
  });
  const photo = input('a'.repeat(64), 'upload-1');
  const sketch = input('b'.repeat(64));
  const mask = input('c'.repeat(64), 'upload-2');
  const edit = { prompt: 'a hat', strength: 0.6, edit: { images: [photo], mask } };

  it.each<[string, Parameters<typeof inputKeyOf>[0], null]>([
    ['a plain prompt', {}, null],
    ['background auto is a plain prompt', { background: 'auto' }, null],
    ['style strength alone is no input', { strength: 0.3 }, null],
  ])('%s has no input key', (_name, request, key) => {
    expect(inputKeyOf(request)).toBe(key);
  });

  it.each([
    ['the same edit twice', edit, { ...edit }, true],
    [
      'the same bytes uploaded again (another upload id, same content hash)',
      edit,
      { ...edit, edit: { images: [input('a'.repeat(64), 'upload-9')], mask } },
      true,
    ],
    ['an edit and the plain prompt', edit, { prompt: 'a hat', strength: 0.6 }, false],
    ['another input image', edit, { ...edit, edit: { images: [sketch], mask } }, false],
    ['with and without the mask', edit, { ...edit, edit: { images: [photo] } }, false],
    ['another mask', edit, { ...edit, edit: { images: [photo], mask: input('d'.repeat(64)) } }, false],
    ['a reference image added', edit, { ...edit, edit: { images: [photo, sketch], mask } }, false],
    ['the references in another order', { ...edit, edit: { images: [photo, sketch] } }, { ...edit, edit: { images: [sketch, photo] } }, false],
    ['another strength', edit, { ...edit, strength: 0.9 }, false],
    ['a transparent background', edit, { ...edit, background: 'transparent' as const }, false],
    ['transparent and plain', { prompt: 'a hat', background: 'transparent' as const }, { prompt: 'a hat' }, false],
    ['transparent and opaque', { prompt: 'a hat', background: 'transparent' as const }, { prompt: 'a hat', background: 'opaque' as const }, false],
    ['a mask’s hash passed as an image instead', { ...edit, edit: { images: [photo, mask] } }, edit, false],
  ])('%s: same key %s', (_name, a, b, same) => {
    expect(cacheKeyString(cacheKeyOf('acc', a)) === cacheKeyString(cacheKeyOf('acc', b))).toBe(same);
    expect(flightKeyOf(cacheKeyOf('acc', a), wanted) === flightKeyOf(cacheKeyOf('acc', b), wanted)).toBe(same);
  });

  it('an edit’s key is a digest, and the same edit by another account is another key', () => {
    expect(inputKeyOf(edit)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cacheKeyString(cacheKeyOf('acc', edit))).not.toBe(cacheKeyString(cacheKeyOf('other', edit)));
  });
});
