import { createKeyCache } from './key-cache';

const key = (id: string, accountId = 'acc-1') => ({ id, account: { id: accountId } });

describe('key cache', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => (clock = 1_000));

  it('reads the database once per key within the ttl, again after it', async () => {
    const lookup = jest.fn(async (hash: string) => (hash === 'h1' ? key('k1') : null));
    const cache = createKeyCache({ lookup, now, ttlMs: 10_000, refreshAheadMs: 0 });
    expect(await cache.get('h1')).toEqual(key('k1'));
    clock += 9_999;
    await cache.get('h1');
    expect(lookup).toHaveBeenCalledTimes(1);
    clock += 2;
    await cache.get('h1');
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('remembers unknown keys only briefly', async () => {
    const lookup = jest.fn(async () => null);
    const cache = createKeyCache({ lookup, now, negativeTtlMs: 2_000 });
    await cache.get('bad');
    await cache.get('bad');
    expect(lookup).toHaveBeenCalledTimes(1);
    clock += 2_001;
    await cache.get('bad');
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('concurrent misses share one read', async () => {
    const lookup = jest.fn(async () => key('k1'));
    const cache = createKeyCache({ lookup, now });
    await Promise.all(Array.from({ length: 20 }, () => cache.get('h1')));
    expect(lookup).toHaveBeenCalledTimes(1);
  });

  it.each([
    [{ kind: 'key', keyId: 'k1' }, 2],
    [{ kind: 'account', accountId: 'acc-1' }, 2],
    [{ kind: 'key', keyId: 'other' }, 1],
    [{ kind: 'account', accountId: 'acc-2' }, 1],
  ] as const)('invalidate %j → %d database reads', async (message, reads) => {
    const lookup = jest.fn(async () => key('k1', 'acc-1'));
    const cache = createKeyCache({ lookup, now });
    await cache.get('h1');
    cache.invalidate(message);
    await cache.get('h1');
    expect(lookup).toHaveBeenCalledTimes(reads);
  });

  it('does not cache a read that raced with an invalidation', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const lookup = jest.fn(async () => {
      await gate;
      return key('k1');
    });
    const cache = createKeyCache({ lookup, now });
    const pending = cache.get('h1');
    cache.invalidate({ kind: 'key', keyId: 'k1' });
    release();
    await pending;
    await cache.get('h1');
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('bounds its bytes, dropping the oldest keys first', async () => {
    const lookup = jest.fn(async (h: string) => key(h));
    const cache = createKeyCache({ lookup, now, maxBytes: 64 * 1024 });
    for (let i = 0; i < 1000; i++) await cache.get(`h${i}`);
    expect(cache.bytes()).toBeLessThanOrEqual(64 * 1024);
    expect(cache.size()).toBeLessThan(1000);
    await cache.get('h999');
    expect(lookup).toHaveBeenCalledTimes(1000);
    await cache.get('h0');
    expect(lookup).toHaveBeenCalledTimes(1001);
  });

  it('a key in use is read again shortly before its expiry, in the background; requests never wait for it', async () => {
    let release!: () => void;
    let gate: Promise<void> = Promise.resolve();
    let revoked = false;
    const lookup = jest.fn(async () => {
      await gate;
      return revoked ? null : key('k1');
    });
    const cache = createKeyCache({ lookup, now, ttlMs: 10_000, refreshAheadMs: 2_000 });
    await cache.get('h1');
    clock += 7_999;
    await cache.get('h1');
    expect(lookup).toHaveBeenCalledTimes(1);
    clock += 1; // 2 s before the expiry
    gate = new Promise<void>((r) => (release = r));
    revoked = true;
    // Answered from memory while the held refresh runs, and only one refresh starts.
    expect(await Promise.all([cache.get('h1'), cache.get('h1')])).toEqual([key('k1'), key('k1')]);
    expect(lookup).toHaveBeenCalledTimes(2);
    release();
    await new Promise((r) => setImmediate(r));
    // The refresh found the key revoked: the next request is refused without waiting for the ttl.
    expect(await cache.get('h1')).toBeNull();
  });

  it('a refresh that raced with an invalidation is neither remembered nor joined', async () => {
    let release!: () => void;
    let gate: Promise<void> = Promise.resolve();
    let current: ReturnType<typeof key> | null = key('k1');
    const lookup = jest.fn(async () => {
      const answer = current;
      await gate;
      return answer;
    });
    const cache = createKeyCache({ lookup, now, ttlMs: 10_000, refreshAheadMs: 2_000 });
    await cache.get('h1');
    clock += 9_000;
    gate = new Promise<void>((r) => (release = r));
    await cache.get('h1'); // starts the held refresh, which read the key before its revocation
    current = null;
    gate = Promise.resolve();
    cache.invalidate({ kind: 'key', keyId: 'k1' });
    expect(await cache.get('h1')).toBeNull();
    release();
    await new Promise((r) => setImmediate(r));
    expect(await cache.get('h1')).toBeNull();
  });
});
