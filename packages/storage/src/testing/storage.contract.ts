/**
 * Behaviour every Storage adapter must show. Run from an adapter's integration test with a
 * factory that returns a fresh storage and a way to check what its public URL serves.
 */
import { randomBytes } from 'node:crypto';
import type { Storage } from '@promptpix/core';

export interface StorageFixture {
  storage: Storage;
  /** Asserts that `storage.publicUrl(key)` serves `body` (and, where the adapter keeps it, `contentType`). */
  expectPublicUrlServes(key: string, body: Buffer, contentType: string): Promise<void>;
  stop(): Promise<void>;
}

export function describeStorageContract(name: string, makeStorage: () => Promise<StorageFixture>): void {
  describe(`Storage contract: ${name}`, () => {
    let fixture: StorageFixture;
    let storage: Storage;
    const key = (label: string) => `images/${label}-${randomBytes(6).toString('hex')}.png`;

    beforeAll(async () => {
      fixture = await makeStorage();
      storage = fixture.storage;
    });
    afterAll(async () => {
      await fixture?.stop();
    });

    it('round-trips small bytes exactly', async () => {
      const k = key('small');
      const body = Buffer.from('hello, image\n\0\xff', 'latin1');
      await storage.put(k, body, 'image/png');
      const read = await storage.get(k);
      expect(read).not.toBeNull();
      expect(Buffer.compare(read!, body)).toBe(0);
    });

    it('round-trips a 1 MB random buffer byte for byte', async () => {
      const k = key('large');
      const body = randomBytes(1024 * 1024);
      await storage.put(k, body, 'image/webp');
      const read = await storage.get(k);
      expect(read).not.toBeNull();
      expect(read!.length).toBe(body.length);
      expect(Buffer.compare(read!, body)).toBe(0);
    });

    it('round-trips an empty object', async () => {
      const k = key('empty');
      await storage.put(k, Buffer.alloc(0), 'image/png');
      expect((await storage.get(k))?.length).toBe(0);
      expect(await storage.exists(k)).toBe(true);
    });

    it('returns null for a missing key and exists() tells both apart', async () => {
      const k = key('missing');
      expect(await storage.get(k)).toBeNull();
      expect(await storage.exists(k)).toBe(false);
      expect(await storage.get(`never/${k}`)).toBeNull();
      await storage.put(k, Buffer.from('x'), 'image/png');
      expect(await storage.exists(k)).toBe(true);
    });

    it('deletes an object; deleting a missing one is no error', async () => {
      const k = key('delete');
      await storage.put(k, Buffer.from('gone soon'), 'image/png');
      await storage.delete(k);
      expect(await storage.exists(k)).toBe(false);
      expect(await storage.get(k)).toBeNull();
      await expect(storage.delete(k)).resolves.toBeUndefined();
      await expect(storage.delete(`never/${k}`)).resolves.toBeUndefined();
    });

    it('overwrites an existing object', async () => {
      const k = key('overwrite');
      await storage.put(k, Buffer.from('first version, longer'), 'image/png');
      await storage.put(k, Buffer.from('second'), 'image/png');
      expect((await storage.get(k))?.toString()).toBe('second');
    });

    it('serves the object at its public URL', async () => {
      const k = key('public');
      const body = randomBytes(64 * 1024);
      await storage.put(k, body, 'image/png');
      const url = storage.publicUrl(k);
      expect(url).toMatch(/^https?:\/\//);
      expect(url.endsWith(`/${k}`)).toBe(true);
      await fixture.expectPublicUrlServes(k, body, 'image/png');
    });

    it.each([
      ['absolute', '/etc/passwd'],
      ['parent segment', '../outside.png'],
      ['inner parent segment', 'images/../../outside.png'],
      ['trailing parent segment', 'images/..'],
      ['backslash', 'images\\evil.png'],
      ['NUL', 'images/a\0.png'],
      ['empty', ''],
      ['empty segment', 'images//a.png'],
      ['dot segment', './images/a.png'],
    ])('rejects a bad key (%s)', async (_label, bad) => {
      await expect(storage.put(bad, Buffer.from('x'), 'image/png')).rejects.toThrow(/key/i);
      await expect(storage.get(bad)).rejects.toThrow(/key/i);
      await expect(storage.exists(bad)).rejects.toThrow(/key/i);
      expect(() => storage.publicUrl(bad)).toThrow(/key/i);
    });

    it('answers ping', async () => {
      await expect(storage.ping()).resolves.toBeUndefined();
    });
  });
}
