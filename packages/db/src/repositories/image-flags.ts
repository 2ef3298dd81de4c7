import type { PrismaClient } from '../generated/client';

/**
 * The image flag transitions of the spec, each one transaction: either every side effect
 * happens or none. Each returns false when the account owns no such image.
 */
export const createImageFlagRepository = (prisma: PrismaClient) => ({
  /** pinned; clears a rejection; becomes the image its permalinks serve (other pins there drop). */
  pin: (id: string, accountId: string) =>
    prisma.$transaction(async (tx) => {
      const updated = await tx.image.updateMany({ where: { id, accountId }, data: { pinned: true, rejected: false } });
      if (updated.count === 0) return false;
      const links = await tx.permalinkImage.findMany({ where: { imageId: id }, select: { permalinkId: true } });
      if (links.length > 0) {
        await tx.image.updateMany({
          where: { id: { not: id }, pinned: true, permalinks: { some: { permalinkId: { in: links.map((l) => l.permalinkId) } } } },
          data: { pinned: false },
        });
      }
      return true;
    }),

  /** Not pinned: its permalinks go back to rotating. */
  unpin: async (id: string, accountId: string) => (await prisma.image.updateMany({ where: { id, accountId }, data: { pinned: false } })).count > 0,

  /**
   * Rejected: unpinned and unhooked from its permalinks. The render cache skips rejected images,
   * so the next request for its prompt makes a fresh one. The record and file stay.
   */
  reject: (id: string, accountId: string) =>
    prisma.$transaction(async (tx) => {
      const updated = await tx.image.updateMany({ where: { id, accountId }, data: { rejected: true, pinned: false } });
      if (updated.count === 0) return false;
      await tx.permalinkImage.deleteMany({ where: { imageId: id } });
      return true;
    }),
});

export type ImageFlagRepository = ReturnType<typeof createImageFlagRepository>;
