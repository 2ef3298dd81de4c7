import { randomUUID } from 'node:crypto';
import { uploadStorageKey, type NewUploadRecord } from '@promptpix/core';
import type { Database } from '../client';
import { bothDatabases } from '../testing';
import { createUploadRepository } from './uploads';

const NOW = new Date('2026-11-27T12:00:00Z');
const later = (hours: number) => new Date(NOW.getTime() + hours * 3_600_000);
const sha = () => randomUUID().replaceAll('-', '').padEnd(64, '0');

describe.each(bothDatabases)('upload repository (%s)', (_name, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ db, cleanup } = await open()));
  afterAll(() => cleanup());

  const account = async () =>
    (await db.prisma.account.create({ data: { handle: `up-${randomUUID().slice(0, 8)}`, email: 'u@example.com', status: 'approved' } })).id;
  const upload = (accountId: string, bytes: number, sha256 = sha()): NewUploadRecord => ({
    id: randomUUID(),
    accountId,
    storageKey: uploadStorageKey(accountId, sha256),
    sha256,
    width: 64,
    height: 48,
    bytes,
    hasAlpha: false,
  });
  const terms = (budgetBytes: number, now = NOW) => ({ budgetBytes, now, expiresAt: new Date(now.getTime() + 24 * 3_600_000) });

  it('20 concurrent uploads never pass the budget together: exactly the ones that fit are recorded', async () => {
    const uploads = createUploadRepository(db.prisma);
    const accountId = await account();
    const results = await Promise.all(Array.from({ length: 20 }, () => uploads.record(upload(accountId, 1000), terms(7500))));
    expect(results.filter((r) => r?.created)).toHaveLength(7);
    expect(results.filter((r) => r === null)).toHaveLength(13);
    expect(await uploads.heldBytes(accountId, NOW)).toBe(7000);
    expect(await db.prisma.upload.count({ where: { accountId } })).toBe(7);
  });

  it('the same content again is the same upload, its expiry moved on, no bytes added (even at the budget)', async () => {
    const uploads = createUploadRepository(db.prisma);
    const accountId = await account();
    const first = upload(accountId, 1000);
    const made = await uploads.record(first, terms(1000));
    const again = await uploads.record({ ...first, id: randomUUID() }, terms(1000, later(5)));
    expect(again).toEqual({ created: false, upload: { ...made!.upload, expiresAt: later(29) } });
    expect(await uploads.heldBytes(accountId, NOW)).toBe(1000);
    expect(await uploads.heldBytes(accountId, NOW, first.sha256)).toBe(0);
    // Another account's identical bytes are its own upload, under its own key.
    const other = await account();
    const theirs = await uploads.record({ ...upload(other, 1000, first.sha256) }, terms(1000));
    expect(theirs?.created).toBe(true);
    expect(theirs?.upload.storageKey).not.toBe(made?.upload.storageKey);
  });

  it('reads only the account’s own live uploads', async () => {
    const uploads = createUploadRepository(db.prisma);
    const [mine, theirs] = [await account(), await account()];
    const a = (await uploads.record(upload(mine, 10), terms(1000)))!.upload;
    const b = (await uploads.record(upload(theirs, 10), terms(1000)))!.upload;
    expect((await uploads.findLive(mine, [a.id, b.id], NOW)).map((u) => u.id)).toEqual([a.id]);
    expect(await uploads.findLive(theirs, [a.id], NOW)).toEqual([]);
    expect(await uploads.findLive(mine, [a.id], later(25))).toEqual([]);
    // Touching through another account changes nothing.
    await uploads.touch(theirs, [a.id], later(20), later(44));
    expect(await uploads.findLive(mine, [a.id], later(25))).toEqual([]);
    await uploads.touch(mine, [a.id], later(20), later(44));
    expect((await uploads.findLive(mine, [a.id], later(25)))[0]?.expiresAt).toEqual(later(44));
  });

  it('expired uploads leave the budget at once, and are swept with the keys of their objects', async () => {
    const uploads = createUploadRepository(db.prisma);
    const accountId = await account();
    const old = (await uploads.record(upload(accountId, 600), terms(1000)))!.upload;
    expect(await uploads.record(upload(accountId, 600), terms(1000))).toBeNull();
    // Past its expiry it no longer counts, even before housekeeping runs.
    const fresh = await uploads.record(upload(accountId, 600), terms(1000, later(25)));
    expect(fresh?.created).toBe(true);
    const removed = await uploads.removeExpired(later(25), 1000);
    expect(removed).toContain(old.storageKey);
    expect(removed).not.toContain(fresh!.upload.storageKey);
    expect(await db.prisma.upload.findUnique({ where: { id: old.id } })).toBeNull();
    expect(await db.prisma.upload.findUnique({ where: { id: fresh!.upload.id } })).not.toBeNull();
  });

  it('an expired row of the same content is replaced by the new upload', async () => {
    const uploads = createUploadRepository(db.prisma);
    const accountId = await account();
    const first = upload(accountId, 100);
    const old = (await uploads.record(first, terms(1000)))!.upload;
    const renewed = await uploads.record({ ...first, id: randomUUID() }, terms(1000, later(30)));
    expect(renewed?.created).toBe(true);
    expect(renewed?.upload.id).not.toBe(old.id);
    expect(await db.prisma.upload.count({ where: { accountId } })).toBe(1);
    expect(await uploads.removeExpired(later(31), 1000)).not.toContain(old.storageKey);
  });
});
