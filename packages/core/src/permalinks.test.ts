import { choosePermalinkImage, permalinkRefererAllowed, pinnedPermalinkImage, type PermalinkCandidate } from './permalinks';

const img = (imageId: string, o: Partial<PermalinkCandidate> = {}): PermalinkCandidate => ({
  imageId,
  storageKey: `images/${imageId}.webp`,
  pinned: false,
  rejected: false,
  addedAt: new Date(2026, 0, Number(imageId.replace(/\D/g, '')) || 1),
  ...o,
});

describe('choosePermalinkImage', () => {
  const a = img('a1');
  const b = img('b2');
  const c = img('c3');

  it.each([
    ['no images', [], 0, null],
    ['only rejected images', [img('a1', { rejected: true })], 0, null],
    ['rotation 0 → first added', [c, a, b], 0, 'a1'],
    ['rotation 1 → second', [c, a, b], 1, 'b2'],
    ['rotation wraps', [c, a, b], 5, 'c3'],
    ['rejected images are skipped', [a, img('b2', { rejected: true }), c], 1, 'c3'],
    ['a pinned image wins over rotation', [a, img('b2', { pinned: true }), c], 2, 'b2'],
    ['a pinned but rejected image does not count', [a, img('b2', { pinned: true, rejected: true }), c], 1, 'c3'],
    ['the newest pin wins', [img('a1', { pinned: true }), img('c3', { pinned: true }), b], 0, 'c3'],
  ])('%s', (_name, images, rotation, expected) => {
    expect(choosePermalinkImage(images, rotation)?.imageId ?? null).toBe(expected);
  });
});

describe('pinnedPermalinkImage', () => {
  it.each([
    ['no images', [], null],
    ['none pinned', [img('a1'), img('b2')], null],
    ['the pinned one', [img('a1'), img('b2', { pinned: true })], 'b2'],
    ['a rejected pin does not count', [img('a1', { pinned: true, rejected: true }), img('b2')], null],
    ['two pins: the one added last, as served', [img('c3', { pinned: true }), img('a1', { pinned: true })], 'c3'],
  ])('%s', (_name, images, expected) => {
    expect(pinnedPermalinkImage(images)?.imageId ?? null).toBe(expected);
    if (expected) expect(choosePermalinkImage(images, 7)?.imageId).toBe(expected);
  });
});

describe('permalinkRefererAllowed', () => {
  it.each([
    [[], 'https://any.io/page', true],
    [[['shop.io']], undefined, true],
    [[['shop.io']], 'https://shop.io/products/1', true],
    [[['*.shop.io']], 'https://cdn.eu.shop.io/x', true],
    [[['shop.io']], 'https://evil.io/', false],
    [[['shop.io'], []], 'https://evil.io/', true],
    [[['shop.io'], ['blog.io']], 'https://blog.io/post', true],
    [[['shop.io']], 'http://localhost:8080/', true],
  ] as const)('keys %j, referer %s → %s', (domains, referer, allowed) => {
    expect(permalinkRefererAllowed(domains as unknown as string[][], referer)).toBe(allowed);
  });
});
