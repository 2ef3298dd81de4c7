import { cacheKeyOf } from '@promptpix/core';
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
      data: { accountId: account.id, prompt: 'a lighthouse in fog', normalizedPrompt: key.normalizedPrompt, style: 'watercolor', width: 256, height: 256, format: 'png', seed: 7n, storageKey: 'images/l.png', bytes: 1 },
    });
    const found = await images.findCachedOrReserve(key, { periodStart, limit: 10 });
    expect(found.reservedUsed).toBeNull();
    expect(found.images).toEqual(await images.findCached(key));
    expect(found.images).toHaveLength(1);
    expect(found.images[0]).toMatchObject({ storageKey: 'images/l.png', width: 256, format: 'png', seed: 7, sourceImageId: null, rejected: false });
    expect(Number.isNaN(found.images[0].createdAt.getTime())).toBe(false);
    expect(await usedOf(account.id)).toBe(1);
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
});
