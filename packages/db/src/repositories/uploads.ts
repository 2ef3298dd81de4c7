import { fitsUploadBudget, type NewUploadRecord, type UploadRecord, type UploadStore } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';
import { lockAccountFor } from './account-lock';

const select = { id: true, accountId: true, storageKey: true, sha256: true, width: true, height: true, bytes: true, hasAlpha: true, expiresAt: true } as const;

/**
 * Uploads (images sent in to edit, issue #31). Every statement names the account. The budget is
 * counted under the account's upload lock (a transaction-level advisory lock, as for keys), so
 * concurrent uploads are counted one after another and never pass it together.
 */
export const createUploadRepository = (prisma: PrismaClient): UploadStore => ({
  async heldBytes(accountId, now, except) {
    const held = await prisma.upload.aggregate({
      _sum: { bytes: true },
      where: { accountId, expiresAt: { gt: now }, ...(except !== undefined && { sha256: { not: except } }) },
    });
    return held._sum.bytes ?? 0;
  },

  async record(upload: NewUploadRecord, { budgetBytes, now, expiresAt }) {
    return prisma.$transaction(async (tx) => {
      await lockAccountFor(tx, 'uploads', upload.accountId);
      const known = await tx.upload.findUnique({ where: { accountId_sha256: { accountId: upload.accountId, sha256: upload.sha256 } }, select });
      if (known && known.expiresAt > now) {
        const touched = await tx.upload.update({ where: { id: known.id }, data: { lastUsedAt: now, expiresAt }, select });
        return { upload: touched, created: false };
      }
      const held = await tx.upload.aggregate({ _sum: { bytes: true }, where: { accountId: upload.accountId, expiresAt: { gt: now } } });
      if (!fitsUploadBudget(held._sum.bytes ?? 0, upload.bytes, budgetBytes)) return null;
      // An expired row of the same content not swept yet: it becomes the new upload (a new id: the old one expired).
      if (known) await tx.upload.delete({ where: { id: known.id } });
      const created = await tx.upload.create({ data: { ...upload, createdAt: now, lastUsedAt: now, expiresAt }, select });
      return { upload: created, created: true };
    });
  },

  async findLive(accountId, ids, now): Promise<UploadRecord[]> {
    if (ids.length === 0) return [];
    return prisma.upload.findMany({ where: { accountId, id: { in: ids }, expiresAt: { gt: now } }, select });
  },

  async touch(accountId, ids, now, expiresAt) {
    if (ids.length === 0) return;
    await prisma.upload.updateMany({ where: { accountId, id: { in: ids } }, data: { lastUsedAt: now, expiresAt } });
  },

  async removeExpired(now, limit) {
    const expired = await prisma.upload.findMany({ where: { expiresAt: { lte: now } }, select: { id: true, storageKey: true }, take: limit });
    if (expired.length === 0) return [];
    // Only rows still expired: an upload of the same content since the read moved its expiry on.
    await prisma.upload.deleteMany({ where: { id: { in: expired.map((u) => u.id) }, expiresAt: { lte: now } } });
    const keys = [...new Set(expired.map((u) => u.storageKey))];
    const stillUsed = new Set((await prisma.upload.findMany({ where: { storageKey: { in: keys } }, select: { storageKey: true } })).map((u) => u.storageKey));
    return keys.filter((key) => !stillUsed.has(key));
  },
});

export type UploadRepository = ReturnType<typeof createUploadRepository>;
