import { createRenderedCache } from './rendered-cache';

const image = (bytes: number, seed = 1) => ({ data: Buffer.alloc(bytes), key: `images/${seed}.png`, contentType: 'image/png', seed, model: 'gpu' });

describe('createRenderedCache', () => {
  it('keeps images by job until their bytes pass the bound, the oldest going first', () => {
    const cache = createRenderedCache({ maxBytes: 100, ttlMs: 1000, now: () => 0 });
    cache.set('a', image(40, 1));
    cache.set('b', image(40, 2));
    expect(cache.get('a')?.seed).toBe(1);
    cache.set('c', image(40, 3));
    expect([cache.get('a'), cache.get('b')?.seed, cache.get('c')?.seed]).toEqual([null, 2, 3]);
    expect(cache.bytes()).toBe(80);
  });

  it("replaces a job's image, forgets it on delete, never keeps one larger than the bound, and lets old ones expire", () => {
    let now = 0;
    const cache = createRenderedCache({ maxBytes: 100, ttlMs: 1000, now: () => now });
    cache.set('a', image(40, 1));
    cache.set('a', image(50, 2));
    expect([cache.get('a')?.seed, cache.bytes()]).toEqual([2, 50]);
    cache.delete('a');
    expect([cache.get('a'), cache.bytes()]).toEqual([null, 0]);
    cache.set('huge', image(101));
    expect(cache.get('huge')).toBeNull();
    cache.set('old', image(10));
    now = 1001;
    expect([cache.get('old'), cache.bytes()]).toEqual([null, 0]);
  });
});
