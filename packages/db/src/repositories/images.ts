import type { CacheKey, CachedImage } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';

export interface NewImage {
  id: string;
  accountId: string;
  prompt: string;
  normalizedPrompt: string;
  style?: string | null;
  strength: number;
  characterId?: string | null;
  ageBucket?: string | null;
  width: number;
  height: number;
  format: string;
  seed: number;
  storageKey: string;
  bytes: number;
  sourceImageId?: string | null;
  tags?: string[];
  jobId?: string | null;
  createdAt?: Date;
}

export const createImageRepository = (prisma: PrismaClient) => ({
  /** Idempotent by id: a retried job writes the same record instead of a second one. */
  save: (image: NewImage) => prisma.image.upsert({ where: { id: image.id }, create: image, update: {} }),
  findOwned: (id: string, accountId: string) => prisma.image.findFirst({ where: { id, accountId } }),
  findById: (id: string) => prisma.image.findUnique({ where: { id } }),

  /** An account's own record of a shared-library image (instant mode); idempotent by id. */
  /** One statement: a second instant match of the same library image for the same account is a no-op. */
  async saveLibraryCopy(copy: { id: string; accountId: string; pool: Pick<NewImage, 'normalizedPrompt' | 'style' | 'width' | 'height' | 'format' | 'seed' | 'storageKey'> & { id: string; ageBucket: string | null; tags: string[] } }): Promise<void> {
    const p = copy.pool;
    await prisma.$executeRaw`
      INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "style", "strength", "ageBucket", "width", "height",
                           "format", "seed", "storageKey", "bytes", "tags", "sourceImageId", "createdAt")
      VALUES (${copy.id}::uuid, ${copy.accountId}::uuid, ${p.normalizedPrompt}, ${p.normalizedPrompt}, ${p.style}, 1, ${p.ageBucket},
              ${p.width}, ${p.height}, ${p.format}, ${p.seed}, ${p.storageKey}, 0, ${p.tags}::text[], ${p.id}::uuid,
              (${new Date().toISOString()}::timestamptz AT TIME ZONE 'UTC'))
      ON CONFLICT ("id") DO NOTHING`;
  },

  /** Newest live original of this exact prompt in any style: render's out-of-quota fallback. */
  findLatestByPrompt: (accountId: string, normalizedPrompt: string) =>
    prisma.image.findFirst({ where: { accountId, normalizedPrompt, rejected: false }, orderBy: { createdAt: 'desc' } }),

  /** Every live image under any of these cache keys of one account: one query for an embed batch. */
  findCachedMany: (accountId: string, keys: CacheKey[]) =>
    prisma.image.findMany({
      where: {
        accountId,
        rejected: false,
        normalizedPrompt: { in: [...new Set(keys.map((k) => k.normalizedPrompt))] },
      },
      select: {
        id: true,
        storageKey: true,
        width: true,
        height: true,
        format: true,
        sourceImageId: true,
        rejected: true,
        createdAt: true,
        normalizedPrompt: true,
        style: true,
        characterId: true,
        ageBucket: true,
      },
      orderBy: { createdAt: 'desc' },
      take: 50 * keys.length,
    }),

  /** Every image stored under one render-cache key (originals and variants); one indexed query. */
  findCached: (key: CacheKey): Promise<CachedImage[]> =>
    prisma.image.findMany({
      where: {
        accountId: key.accountId,
        normalizedPrompt: key.normalizedPrompt,
        style: key.style,
        characterId: key.characterId,
        ageBucket: key.ageBucket,
        rejected: false,
      },
      select: { id: true, storageKey: true, width: true, height: true, format: true, sourceImageId: true, rejected: true, createdAt: true },
      orderBy: { createdAt: 'desc' },
      take: 50,
    }),
});

export type ImageRepository = ReturnType<typeof createImageRepository>;
