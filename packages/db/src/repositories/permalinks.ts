import { isShutOut, type PermalinkForServing } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';

export const createPermalinkRepository = (prisma: PrismaClient) => ({
  /** Creates a permalink over images the account owns; returns the ids it could not find. */
  async create(accountId: string, name: string, imageIds: string[]) {
    const owned = await prisma.image.findMany({ where: { id: { in: imageIds }, accountId }, select: { id: true } });
    const missing = imageIds.filter((id) => !owned.some((o) => o.id === id));
    if (missing.length > 0) return { ok: false as const, missing };
    const permalink = await prisma.permalink.create({
      data: { accountId, name, images: { create: imageIds.map((imageId, i) => ({ imageId, addedAt: new Date(Date.now() + i) })) } },
    });
    return { ok: true as const, permalink };
  },

  /**
   * Everything serving needs, in one query: the permalink's images and the domain lists of the
   * account's live publishable keys (for the Referer check). A suspended or banned account's
   * permalinks are not served (null: 404, as if unknown).
   */
  async findForServing(handle: string, name: string): Promise<PermalinkForServing | null> {
    const p = await prisma.permalink.findFirst({
      where: { name, account: { handle } },
      select: {
        id: true,
        accountId: true,
        images: { select: { imageId: true, addedAt: true, image: { select: { storageKey: true, pinned: true, rejected: true } } } },
        account: { select: { status: true, keys: { where: { kind: 'publishable', revokedAt: null }, select: { domains: true } } } },
      },
    });
    if (!p || isShutOut(p.account.status)) return null;
    return {
      id: p.id,
      accountId: p.accountId,
      images: p.images.map((i) => ({ imageId: i.imageId, addedAt: i.addedAt, ...i.image })),
      publishableKeyDomains: p.account.keys.map((k) => k.domains),
    };
  },

  /**
   * Puts one of the account's images in the permalink of this name, creating the permalink when
   * there is none. Returns null when the account owns no such image. Adding an image it already
   * holds changes nothing.
   */
  async addImageByName(accountId: string, name: string, imageId: string) {
    const owned = await prisma.image.count({ where: { id: imageId, accountId } });
    if (owned === 0) return null;
    // ON CONFLICT DO NOTHING, then read: two first saves to one new name both land in the same permalink.
    await prisma.permalink.createMany({ data: [{ accountId, name }], skipDuplicates: true });
    const permalink = await prisma.permalink.findUniqueOrThrow({ where: { accountId_name: { accountId, name } } });
    await prisma.permalinkImage.createMany({ data: [{ permalinkId: permalink.id, imageId }], skipDuplicates: true });
    return permalink;
  },

  /** Adds an image to those of these permalinks that belong to the account (a regenerated take). */
  async addImageToMany(accountId: string, permalinkIds: string[], imageId: string): Promise<number> {
    if (permalinkIds.length === 0) return 0;
    const owned = await prisma.permalink.findMany({ where: { id: { in: permalinkIds }, accountId }, select: { id: true } });
    const result = await prisma.permalinkImage.createMany({ data: owned.map((p) => ({ permalinkId: p.id, imageId })), skipDuplicates: true });
    return result.count;
  },

  /** An account's permalinks (one, by name, when given) with their images, newest permalink first. */
  listForAccount: (accountId: string, name?: string) =>
    prisma.permalink.findMany({
      where: { accountId, ...(name !== undefined && { name }) },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      select: {
        name: true,
        images: {
          orderBy: { addedAt: 'asc' },
          select: { addedAt: true, image: { select: { id: true, storageKey: true, prompt: true, createdAt: true, pinned: true, rejected: true } } },
        },
      },
    }),

  /** The images of several permalinks of one account, for embed shortcuts: one query, no rotation step. */
  async findManyByName(accountId: string, names: string[]) {
    const rows = await prisma.permalink.findMany({
      where: { accountId, name: { in: names } },
      select: {
        name: true,
        rotation: true,
        images: { select: { imageId: true, addedAt: true, image: { select: { storageKey: true, pinned: true, rejected: true } } } },
      },
    });
    return new Map(rows.map((r) => [r.name, { rotation: r.rotation, images: r.images.map((i) => ({ imageId: i.imageId, addedAt: i.addedAt, ...i.image })) }]));
  },
});

export type PermalinkRepository = ReturnType<typeof createPermalinkRepository>;
