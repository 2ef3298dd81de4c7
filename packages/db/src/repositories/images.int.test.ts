import { cacheKeyOf, createGroupCommit } from '@promptpix/core';
import { isStatementRefused } from '../sql';
import type { Database } from '../client';
import { bothDatabases } from '../testing';
import { createQuotaStore } from './accounts';
import { createImageRepository } from './images';

describe.each(bothDatabases)('render cache lookup with the quota reservation (%s)', (_name, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ db, cleanup } = await open()));
  afterAll(() => cleanup());

  const periodStart = new Date('2026-11-01T00:00:00.000Z');
  const newAccount = (handle: string, quotaUsed = 0) =>
    db.prisma.account.create({ data: { handle, email: `${handle}@example.com`, status: 'approved', quotaUsed, quotaPeriodStart: periodStart } });
  const usedOf = async (id: string) => (await db.prisma.account.findUniqueOrThrow({ where: { id } })).quotaUsed;

  it('reserves a unit only when the key has no images, and reads the images as findCached does', async () => {
    const images = createImageRepository(db.prisma, db.sql);
    const account = await newAccount('lookup');
    const key = cacheKeyOf(account.id, { prompt: 'a  lighthouse in fog', style: 'watercolor' });
    expect(await images.findCachedOrReserve(key, { periodStart, limit: 10 })).toEqual({ images: [], reservedUsed: 1 });
    await db.prisma.image.create({
      data: {
        accountId: account.id,
        prompt: 'a lighthouse in fog',
        normalizedPrompt: key.normalizedPrompt,
        style: 'watercolor',
        width: 256,
        height: 256,
        format: 'png',
        seed: 7n,
        storageKey: 'images/l.png',
        bytes: 1,
      },
    });
    const found = await images.findCachedOrReserve(key, { periodStart, limit: 10 });
    expect(found.reservedUsed).toBeNull();
    expect(found.images).toEqual(await images.findCached(key));
    expect(found.images).toHaveLength(1);
    expect(found.images[0]).toMatchObject({ storageKey: 'images/l.png', width: 256, format: 'png', seed: 7, sourceImageId: null, rejected: false });
    expect(Number.isNaN(found.images[0].createdAt.getTime())).toBe(false);
    expect(await usedOf(account.id)).toBe(1);
  });

  it('derived places: 30 takes at once on a cap of 24 give 24; a give-back frees one and never goes below zero', async () => {
    const images = createImageRepository(db.prisma, db.sql);
    const account = await newAccount('derived');
    const key = cacheKeyOf(account.id, { prompt: 'one original, many sizes' });
    const original = await db.prisma.image.create({
      data: {
        accountId: account.id,
        prompt: key.normalizedPrompt,
        normalizedPrompt: key.normalizedPrompt,
        width: 256,
        height: 256,
        format: 'png',
        seed: 1n,
        storageKey: 'images/o.png',
        bytes: 1,
      },
    });
    const taken = await Promise.all(Array.from({ length: 30 }, () => images.takeDerivedPlace(original.id, 24)));
    expect(taken.filter(Boolean)).toHaveLength(24);
    expect((await images.findCached(key))[0].derivedSizes).toBe(24);
    await images.giveBackDerivedPlace(original.id);
    expect(await images.takeDerivedPlace(original.id, 24)).toBe(true);
    expect(await images.takeDerivedPlace(original.id, 24)).toBe(false);

    const fresh = await db.prisma.image.create({
      data: {
        accountId: account.id,
        prompt: 'another',
        normalizedPrompt: 'another',
        width: 256,
        height: 256,
        format: 'png',
        seed: 2n,
        storageKey: 'images/a.png',
        bytes: 1,
      },
    });
    await images.giveBackDerivedPlace(fresh.id);
    expect((await db.prisma.image.findUniqueOrThrow({ where: { id: fresh.id } })).derivedSizes).toBe(0);
    // A variant is no original: nothing derives from it.
    const variant = await db.prisma.image.create({
      data: {
        accountId: account.id,
        prompt: 'v',
        normalizedPrompt: 'v',
        width: 300,
        height: 256,
        format: 'png',
        seed: 1n,
        storageKey: 'images/v.png',
        bytes: 1,
        sourceImageId: original.id,
      },
    });
    expect(await images.takeDerivedPlace(variant.id, 24)).toBe(false);
  });

  it('an edit and a plain prompt never answer for each other, in every lookup (single, grouped, batch)', async () => {
    const images = createImageRepository(db.prisma, db.sql);
    const account = await newAccount('edits');
    const input = { storageKey: `uploads/${account.id}/${'a'.repeat(64)}.png`, sha256: 'a'.repeat(64), width: 256, height: 256 };
    const plain = cacheKeyOf(account.id, { prompt: 'a red hat' });
    const edit = cacheKeyOf(account.id, { prompt: 'a red hat', strength: 0.5, edit: { images: [input] } });
    const saved = (id: string, inputKey: string | null) =>
      images.save({
        id,
        accountId: account.id,
        prompt: 'a red hat',
        normalizedPrompt: 'a red hat',
        strength: 0.5,
        width: 256,
        height: 256,
        format: 'png',
        seed: 1,
        storageKey: `images/${id}.png`,
        bytes: 1,
        inputKey,
      });
    await saved('00000000-0000-4000-8000-00000000e001', edit.inputKey);
    const ids = (found: { id: string }[]) => found.map((i) => i.id);
    expect(ids(await images.findCached(edit))).toEqual(['00000000-0000-4000-8000-00000000e001']);
    expect(await images.findCached(plain)).toEqual([]);
    // The plain prompt reserves a unit (nothing cached for it); the edit finds its image.
    const [forPlain, forEdit] = await images.findCachedOrReserveMany([
      { key: plain, quota: { periodStart, limit: 10 } },
      { key: edit, quota: { periodStart, limit: 10 } },
    ]);
    expect(forPlain).toEqual({ images: [], reservedUsed: 1 });
    expect(ids(forEdit.images)).toEqual(['00000000-0000-4000-8000-00000000e001']);
    expect((await images.findCachedOrReserve(plain, { periodStart, limit: 10 })).images).toEqual([]);
    await saved('00000000-0000-4000-8000-00000000e002', null);
    expect(ids(await images.findCached(plain))).toEqual(['00000000-0000-4000-8000-00000000e002']);
    const batch = await images.findCachedMany(account.id, [plain]);
    expect(batch.map((row) => [row.id, row.inputKey]).sort()).toEqual([
      ['00000000-0000-4000-8000-00000000e001', edit.inputKey],
      ['00000000-0000-4000-8000-00000000e002', null],
    ]);
  });

  it('reserves nothing at the limit or in another window', async () => {
    const images = createImageRepository(db.prisma, db.sql);
    const account = await newAccount('full', 3);
    const key = cacheKeyOf(account.id, { prompt: 'an empty beach' });
    expect((await images.findCachedOrReserve(key, { periodStart, limit: 3 })).reservedUsed).toBeNull();
    expect((await images.findCachedOrReserve(key, { periodStart: new Date('2026-10-01T00:00:00.000Z'), limit: 10 })).reservedUsed).toBeNull();
    expect(await usedOf(account.id)).toBe(3);
  });

  it('concurrent lookups and plain reservations never push used above the limit', async () => {
    const images = createImageRepository(db.prisma, db.sql);
    const quota = createQuotaStore(db.prisma, db.sql);
    const account = await newAccount('race');
    const limit = 7;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 0
          ? quota.reserve(account.id, periodStart, limit)
          : images.findCachedOrReserve(cacheKeyOf(account.id, { prompt: `distinct prompt ${i}` }), { periodStart, limit }).then((r) => r.reservedUsed),
      ),
    );
    const granted = results.filter((used) => used !== null);
    expect(granted).toHaveLength(limit);
    expect(new Set(granted)).toEqual(new Set([1, 2, 3, 4, 5, 6, 7]));
    expect(await usedOf(account.id)).toBe(limit);
  });

  describe('many lookups in one statement (group commit)', () => {
    const imageUnder = (accountId: string, key: ReturnType<typeof cacheKeyOf>, storageKey: string) =>
      db.prisma.image.create({
        data: {
          accountId,
          prompt: key.normalizedPrompt,
          normalizedPrompt: key.normalizedPrompt,
          style: key.style,
          characterId: key.characterId,
          ageBucket: key.ageBucket,
          negativePrompt: key.negativePrompt,
          width: 64,
          height: 64,
          format: 'png',
          seed: 3n,
          storageKey,
          bytes: 1,
        },
      });

    it('answers each lookup as the single statement would: its own images, and consecutive units for the keys without', async () => {
      const images = createImageRepository(db.prisma, db.sql);
      const a = await newAccount('many-a', 4);
      const b = await newAccount('many-b');
      const cachedPlain = cacheKeyOf(a.id, { prompt: 'a cached owl' });
      const cachedStyled = cacheKeyOf(b.id, { prompt: 'a cached owl', style: 'ink', negativePrompt: 'text', ageBucket: 'kids' });
      await imageUnder(a.id, cachedPlain, 'images/plain.png');
      await imageUnder(b.id, cachedStyled, 'images/styled.png');
      const lookups = [
        cacheKeyOf(a.id, { prompt: 'fresh one' }),
        cachedPlain,
        cacheKeyOf(b.id, { prompt: 'fresh two', seed: 42 }),
        // Same prompt as the cached image of b, but no style: another key, nothing found.
        cacheKeyOf(b.id, { prompt: 'a cached owl' }),
        cachedStyled,
        cacheKeyOf(a.id, { prompt: 'fresh three', style: 'ink' }),
      ].map((key) => ({ key, quota: { periodStart, limit: 10 } }));
      const found = await images.findCachedOrReserveMany(lookups);
      expect(found.map((f) => f.reservedUsed)).toEqual([5, null, 1, 2, null, 6]);
      expect(found.map((f) => f.images.map((i) => i.storageKey))).toEqual([[], ['images/plain.png'], [], [], ['images/styled.png'], []]);
      expect(found[1].images).toEqual(await images.findCached(cachedPlain));
      expect(found[4].images).toEqual(await images.findCached(cachedStyled));
      expect(await usedOf(a.id)).toBe(6);
      expect(await usedOf(b.id)).toBe(2);
    });

    it('reserves all of an account’s units or none: past the limit its lookups get none, another account is unaffected', async () => {
      const images = createImageRepository(db.prisma, db.sql);
      const nearlyFull = await newAccount('many-full', 8);
      const other = await newAccount('many-other');
      const found = await images.findCachedOrReserveMany([
        ...[1, 2, 3].map((i) => ({ key: cacheKeyOf(nearlyFull.id, { prompt: `over ${i}` }), quota: { periodStart, limit: 10 } })),
        { key: cacheKeyOf(other.id, { prompt: 'fits' }), quota: { periodStart, limit: 10 } },
        { key: cacheKeyOf(other.id, { prompt: 'old window' }), quota: { periodStart: new Date('2026-10-01T00:00:00.000Z'), limit: 10 } },
      ]);
      expect(found.map((f) => f.reservedUsed)).toEqual([null, null, null, 1, null]);
      expect(await usedOf(nearlyFull.id)).toBe(8);
      expect(await usedOf(other.id)).toBe(1);
    });

    it('under concurrent batches and single reservations, used never passes the limit and every unit is handed out once', async () => {
      const images = createImageRepository(db.prisma, db.sql);
      const quota = createQuotaStore(db.prisma, db.sql);
      const account = await newAccount('many-race');
      const limit = 13;
      const batch = (b: number, size: number) =>
        images
          .findCachedOrReserveMany(
            Array.from({ length: size }, (_, i) => ({ key: cacheKeyOf(account.id, { prompt: `race ${b}-${i}` }), quota: { periodStart, limit } })),
          )
          .then((found) => found.map((f) => f.reservedUsed));
      const results = (
        await Promise.all([
          batch(1, 4),
          quota.reserve(account.id, periodStart, limit).then((u) => [u]),
          batch(2, 3),
          batch(3, 5),
          batch(4, 1),
          quota.reserve(account.id, periodStart, limit).then((u) => [u]),
          batch(5, 2),
          batch(6, 6),
        ])
      ).flat();
      const granted = results.filter((used): used is number => used !== null);
      expect(await usedOf(account.id)).toBe(granted.length);
      expect(granted.length).toBeLessThanOrEqual(limit);
      expect(new Set(granted).size).toBe(granted.length);
      expect([...granted].sort((x, y) => x - y)).toEqual(Array.from({ length: granted.length }, (_, i) => i + 1));
    });

    it('through group commit, a lookup the database refuses fails alone; the others of its batch get their units', async () => {
      const images = createImageRepository(db.prisma, db.sql);
      const account = await newAccount('many-isolated');
      const lookup = createGroupCommit({
        run: (lookups: Parameters<typeof images.findCachedOrReserveMany>[0]) => images.findCachedOrReserveMany([...lookups]),
        maxItems: 100,
        retryAlone: isStatementRefused,
      });
      const settled = await Promise.allSettled([
        lookup({ key: cacheKeyOf(account.id, { prompt: 'fine one' }), quota: { periodStart, limit: 10 } }),
        // Not a uuid: the database refuses the statement that carries it.
        lookup({ key: cacheKeyOf('not-a-uuid', { prompt: 'broken' }), quota: { periodStart, limit: 10 } }),
        lookup({ key: cacheKeyOf(account.id, { prompt: 'fine two' }), quota: { periodStart, limit: 10 } }),
      ]);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(isStatementRefused((settled[1] as PromiseRejectedResult).reason)).toBe(true);
      const units = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.reservedUsed] : []));
      expect(units.sort()).toEqual([1, 2]);
      expect(await usedOf(account.id)).toBe(2);
    });

    it('one account with two windows or limits in one call takes two statements, each exact', async () => {
      const images = createImageRepository(db.prisma, db.sql);
      const account = await newAccount('many-terms');
      const found = await images.findCachedOrReserveMany([
        { key: cacheKeyOf(account.id, { prompt: 'terms 1' }), quota: { periodStart, limit: 1 } },
        { key: cacheKeyOf(account.id, { prompt: 'terms 2' }), quota: { periodStart, limit: 10 } },
        { key: cacheKeyOf(account.id, { prompt: 'terms 3' }), quota: { periodStart, limit: 10 } },
      ]);
      expect(found.map((f) => f.reservedUsed)).toEqual([1, 2, 3]);
      expect(await usedOf(account.id)).toBe(3);
    });
  });
});
