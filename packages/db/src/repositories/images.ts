import type { CacheKey, CachedImage, CachedImageWithKey } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';
import type { SqlClient } from '../sql';

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

const CACHED_COLUMNS = `"id", "storageKey", "width", "height", "format", "sourceImageId", "rejected", ("createdAt" AT TIME ZONE 'UTC') AS "createdAt"`;

export const createImageRepository = (prisma: PrismaClient, sql: SqlClient) => ({
  /** Idempotent by id: a retried job writes the same record instead of a second one. */
  save: (image: NewImage) => prisma.image.upsert({ where: { id: image.id }, create: image, update: {} }),
  findOwned: (id: string, accountId: string) => prisma.image.findFirst({ where: { id, accountId } }),
  findById: (id: string) => prisma.image.findUnique({ where: { id } }),

  /** An account's own record of a shared-library image (instant mode); idempotent by id. */
  /** One statement: a second instant match of the same library image for the same account is a no-op. */
  async saveLibraryCopy(copy: { id: string; accountId: string; pool: Pick<NewImage, 'normalizedPrompt' | 'style' | 'width' | 'height' | 'format' | 'seed' | 'storageKey'> & { id: string; ageBucket: string | null; tags: string[] } }): Promise<void> {
    const p = copy.pool;
    await sql.execute(
      `INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "style", "strength", "ageBucket", "width", "height",
                            "format", "seed", "storageKey", "bytes", "tags", "sourceImageId", "createdAt")
       VALUES ($1, $2, $3, $3, $4, 1, $5, $6, $7, $8, $9, $10, 0, $11::text[], $12, (now() AT TIME ZONE 'UTC'))
       ON CONFLICT ("id") DO NOTHING`,
      [copy.id, copy.accountId, p.normalizedPrompt, p.style, p.ageBucket, p.width, p.height, p.format, p.seed, p.storageKey, p.tags, p.id],
    );
  },

  /** Newest live original of this exact prompt in any style: render's out-of-quota fallback. */
  findLatestByPrompt: (accountId: string, normalizedPrompt: string) =>
    prisma.image.findFirst({ where: { accountId, normalizedPrompt, rejected: false }, orderBy: { createdAt: 'desc' } }),

  /** Every live image under any of these cache keys' prompts (the caller matches the rest of each key); one query. */
  findCachedMany: (accountId: string, keys: CacheKey[]): Promise<CachedImageWithKey[]> =>
    sql.query<CachedImageWithKey>(
      `SELECT ${CACHED_COLUMNS}, "normalizedPrompt", "style", "characterId", "ageBucket"
       FROM "Image"
       WHERE "accountId" = $1 AND "normalizedPrompt" = ANY($2::text[]) AND NOT "rejected"
       ORDER BY "createdAt" DESC
       LIMIT $3`,
      [accountId, [...new Set(keys.map((k) => k.normalizedPrompt))], 50 * keys.length],
    ),

  /** Every image stored under one render-cache key (originals and variants); one indexed query. */
  findCached(key: CacheKey): Promise<CachedImage[]> {
    const params: unknown[] = [key.accountId, key.normalizedPrompt];
    // `= $n` for a value, IS NULL for none: both stay on the cache-key index.
    const matches = (column: string, value: string | null) => (value === null ? `"${column}" IS NULL` : `"${column}" = $${params.push(value)}`);
    return sql.query<CachedImage>(
      `SELECT ${CACHED_COLUMNS}
       FROM "Image"
       WHERE "accountId" = $1 AND "normalizedPrompt" = $2 AND ${matches('style', key.style)}
         AND ${matches('characterId', key.characterId)} AND ${matches('ageBucket', key.ageBucket)} AND NOT "rejected"
       ORDER BY "createdAt" DESC
       LIMIT 50`,
      params,
    );
  },
});

export type ImageRepository = ReturnType<typeof createImageRepository>;
