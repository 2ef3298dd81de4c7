import { statementsFor, unitsOf, type CacheKey, type CachedImage, type CachedImageWithKey } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';
import type { SqlClient } from '../sql';
import { reserveQuotaStatement } from './accounts';

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
  negativePrompt?: string | null;
  /** The model id when not the default. */
  model?: string | null;
  /** An edit's or a background's part of the cache key (`inputKeyOf`); null for a plain generation. */
  inputKey?: string | null;
  /** What the model said it drew. */
  revisedPrompt?: string | null;
  storageKey: string;
  bytes: number;
  sourceImageId?: string | null;
  tags?: string[];
  jobId?: string | null;
  createdAt?: Date;
}

// seed is int8; as float8 it reads back as a JS number (exact for every seed up to 2^32).
const CACHED_COLUMNS = `"id", "storageKey", "width", "height", "format", "sourceImageId", "rejected", ("createdAt" AT TIME ZONE 'UTC') AS "createdAt", "seed"::float8 AS "seed", "derivedSizes", "revisedPrompt"`;

const CACHED_NAMES = ['id', 'storageKey', 'width', 'height', 'format', 'sourceImageId', 'rejected', 'createdAt', 'seed', 'derivedSizes', 'revisedPrompt'];

/** A quota reservation to make with a cache lookup: the account's window and limit. */
export interface QuotaClaim {
  periodStart: Date;
  limit: number;
}

/** The images stored under one cache key ($1 is the account, as the quota statement expects). */
function cachedSelect(key: CacheKey): { text: string; params: unknown[] } {
  const params: unknown[] = [key.accountId, key.normalizedPrompt];
  // `= $n` for a value, IS NULL for none: both stay on the cache-key index.
  const matches = (column: string, value: string | null) => (value === null ? `"${column}" IS NULL` : `"${column}" = $${params.push(value)}`);
  const text = `SELECT ${CACHED_COLUMNS}
       FROM "Image"
       WHERE "accountId" = $1 AND "normalizedPrompt" = $2 AND ${matches('style', key.style)}
         AND ${matches('characterId', key.characterId)} AND ${matches('ageBucket', key.ageBucket)}
         AND ${matches('negativePrompt', key.negativePrompt)} AND ${matches('model', key.model)} AND ${matches('inputKey', key.inputKey)} ${key.seed === null ? '' : `AND "seed" = $${params.push(key.seed)}`} AND NOT "rejected"
       ORDER BY ("sourceImageId" IS NULL) DESC, "createdAt" DESC
       LIMIT 50`;
  return { text, params };
}

/** Query of the dashboard's image list (`listForAccount`). */
export interface ImageListQuery {
  accountId: string;
  /** Matches the prompt text, case-insensitively. */
  q?: string;
  style?: string;
  /** Created at or after this instant. */
  from?: Date;
  /** Created before this instant. */
  to?: Date;
  /** The last image of the previous page: the page holds older ones. */
  cursor?: { createdAt: Date; id: string };
  limit: number;
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One fresh generation's cache lookup and quota claim, as `findCachedOrReserveMany` takes them. */
export interface CacheLookupWithClaim {
  key: CacheKey;
  quota: QuotaClaim;
}

/** What one lookup found: its images, and the new used when a unit was reserved for it (else null). */
export interface CachedOrReserved {
  images: CachedImage[];
  reservedUsed: number | null;
}

/**
 * Many cache keys' images and, for each key with none, a quota unit, in one statement (group
 * commit of concurrent fresh generations). Per account the units are reserved all or none, by one
 * conditional UPDATE (`used + n <= limit`), so `used` never passes the limit; when they do not all
 * fit, that account's keys get `reservedUsed: null` and the caller reserves one at a time (as
 * when the single statement reserves nothing). The lookup per key is `cachedSelect`'s, on the same
 * index (a NULL column as IS NULL).
 */
const CACHED_OR_RESERVED_MANY = `
  WITH req AS (
    SELECT r.* FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::text[], $6::text[], $7::int8[], $8::timestamptz[], $9::int[], $10::text[], $11::text[])
      WITH ORDINALITY AS r(account, prompt, style, "character", age, negative, seed, period, lim, model, "input", ord)
  ),
  hit AS (
    SELECT r.ord, i.* FROM req r CROSS JOIN LATERAL (
      SELECT ${CACHED_COLUMNS} FROM "Image"
      WHERE "accountId" = r.account AND "normalizedPrompt" = r.prompt
        AND ("style" = r.style OR (r.style IS NULL AND "style" IS NULL))
        AND ("characterId" = r."character" OR (r."character" IS NULL AND "characterId" IS NULL))
        AND ("ageBucket" = r.age OR (r.age IS NULL AND "ageBucket" IS NULL))
        AND ("negativePrompt" = r.negative OR (r.negative IS NULL AND "negativePrompt" IS NULL))
        AND ("model" = r.model OR (r.model IS NULL AND "model" IS NULL))
        AND ("inputKey" = r."input" OR (r."input" IS NULL AND "inputKey" IS NULL))
        AND (r.seed IS NULL OR "seed" = r.seed) AND NOT "rejected"
      ORDER BY ("sourceImageId" IS NULL) DESC, "createdAt" DESC
      LIMIT 50) i
  ),
  need AS (
    SELECT account, min(period) AS period, min(lim) AS lim, count(*)::int AS n FROM req
    WHERE NOT EXISTS (SELECT 1 FROM hit WHERE hit.ord = req.ord) GROUP BY account
  ),
  reserved AS (
    UPDATE "Account" a SET "quotaUsed" = a."quotaUsed" + need.n, "updatedAt" = (now() AT TIME ZONE 'UTC')
    FROM need
    WHERE a."id" = need.account AND a."quotaPeriodStart" = (need.period AT TIME ZONE 'UTC') AND a."quotaUsed" + need.n <= need.lim
    RETURNING a."id" AS account, a."quotaUsed" AS used
  )
  SELECT req.ord::int AS "ord", reserved.account AS "reservedAccount", reserved.used AS "reservedUsed", ${CACHED_NAMES.map((c) => `hit."${c}"`).join(', ')}
  FROM req LEFT JOIN hit ON hit.ord = req.ord LEFT JOIN reserved ON reserved.account = req.account
  ORDER BY req.ord`;

type CachedOrReservedRow = { ord: number; reservedAccount: string | null; reservedUsed: number | null } & { [K in keyof CachedImage]: CachedImage[K] | null };

async function findCachedOrReserveOne(sql: SqlClient, key: CacheKey, quota: QuotaClaim): Promise<CachedOrReserved> {
  const { text, params } = cachedSelect(key);
  const n = params.push(quota.periodStart.toISOString(), quota.limit);
  const rows = await sql.query<CachedImage & { reservedUsed: number | null }>(
    `WITH hit AS (${text}),
     reserved AS (${reserveQuotaStatement('$1', `$${n - 1}`, `$${n}`, ' AND NOT EXISTS (SELECT 1 FROM hit)')})
     SELECT hit.*, reserved."quotaUsed" AS "reservedUsed" FROM (SELECT 1) AS one LEFT JOIN hit ON true LEFT JOIN reserved ON true`,
    params,
  );
  const images = rows.filter((row) => row.id !== null).map(({ reservedUsed: _, ...image }) => image);
  return { images, reservedUsed: rows[0]?.reservedUsed ?? null };
}

async function findCachedOrReserveStatement(sql: SqlClient, lookups: readonly CacheLookupWithClaim[]): Promise<CachedOrReserved[]> {
  const column = <T>(of: (l: CacheLookupWithClaim) => T) => lookups.map(of);
  const rows = await sql.query<CachedOrReservedRow>(CACHED_OR_RESERVED_MANY, [
    column((l) => l.key.accountId),
    column((l) => l.key.normalizedPrompt),
    column((l) => l.key.style),
    column((l) => l.key.characterId),
    column((l) => l.key.ageBucket),
    column((l) => l.key.negativePrompt),
    column((l) => l.key.seed),
    column((l) => l.quota.periodStart.toISOString()),
    column((l) => l.quota.limit),
    column((l) => l.key.model),
    column((l) => l.key.inputKey),
  ]);
  const images: CachedImage[][] = lookups.map(() => []);
  const newUsed = new Map<string, number>();
  for (const { ord, reservedAccount, reservedUsed, ...image } of rows) {
    if (image.id !== null) images[ord - 1].push(image as CachedImage);
    if (reservedAccount !== null && reservedUsed !== null) newUsed.set(reservedAccount, reservedUsed);
  }
  const units = unitsOf(
    lookups.map((l, i) => (images[i].length === 0 ? l.key.accountId : null)),
    newUsed,
  );
  return lookups.map((_, i) => ({ images: images[i], reservedUsed: units[i] }));
}

export const createImageRepository = (prisma: PrismaClient, sql: SqlClient) => ({
  /** Idempotent by id: a retried job writes the same record instead of a second one. */
  async save(image: NewImage): Promise<void> {
    await prisma.image.upsert({ where: { id: image.id }, create: { ...image, seed: BigInt(image.seed) }, update: {} });
  },
  /**
   * Deletes the record a job saved before it was cancelled; its permalink entries go with it.
   * Only that job's own record: true when there was one.
   */
  deleteUnfinished: async (id: string, jobId: string): Promise<boolean> => (await prisma.image.deleteMany({ where: { id, jobId } })).count > 0,
  /**
   * Takes one of an original's places for a derived size (MAX_DERIVED_PER_IMAGE) in one conditional
   * UPDATE, so concurrent derivations cannot all pass the cap: false when none is left (or the
   * original is gone).
   */
  takeDerivedPlace: async (id: string, cap: number): Promise<boolean> =>
    (await sql.execute(`UPDATE "Image" SET "derivedSizes" = "derivedSizes" + 1 WHERE "id" = $1 AND "sourceImageId" IS NULL AND "derivedSizes" < $2`, [
      id,
      cap,
    ])) > 0,
  /**
   * Takes one of an image's places for an upscaled copy (the same MAX_DERIVED_PER_IMAGE as derived
   * sizes) on the account's own row, whichever kind (an original, a variant, an instant copy): one
   * conditional UPDATE, false when none is left or the row is not the account's.
   */
  takeUpscalePlace: async (id: string, accountId: string, cap: number): Promise<boolean> =>
    (await sql.execute(`UPDATE "Image" SET "derivedSizes" = "derivedSizes" + 1 WHERE "id" = $1 AND "accountId" = $2 AND "derivedSizes" < $3`, [
      id,
      accountId,
      cap,
    ])) > 0,
  /** The account's stored copy of `sourceId` at this size and format (an upscale made before), or null. */
  findUpscaled: (sourceId: string, accountId: string, variant: { width: number; height: number; format: string }) =>
    prisma.image.findFirst({
      where: { sourceImageId: sourceId, accountId, width: variant.width, height: variant.height, format: variant.format, rejected: false },
      select: { id: true, storageKey: true, seed: true },
    }),
  /** Gives back a place `takeDerivedPlace` took, for a derivation that failed or was cancelled while queued. */
  async giveBackDerivedPlace(id: string): Promise<void> {
    await sql.execute(`UPDATE "Image" SET "derivedSizes" = "derivedSizes" - 1 WHERE "id" = $1 AND "derivedSizes" > 0`, [id]);
  },
  findOwned: (id: string, accountId: string) => prisma.image.findFirst({ where: { id, accountId } }),
  findById: (id: string) => prisma.image.findUnique({ where: { id } }),

  /** An account's own record of a shared-library image (instant mode); idempotent by id. */
  /** One statement: a second instant match of the same library image for the same account is a no-op. */
  async saveLibraryCopy(copy: {
    id: string;
    accountId: string;
    pool: Pick<NewImage, 'normalizedPrompt' | 'style' | 'width' | 'height' | 'format' | 'seed' | 'storageKey'> & {
      id: string;
      ageBucket: string | null;
      tags: string[];
    };
  }): Promise<void> {
    const p = copy.pool;
    await sql.execute(
      `INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "style", "strength", "ageBucket", "width", "height",
                            "format", "seed", "storageKey", "bytes", "tags", "sourceImageId", "createdAt")
       VALUES ($1, $2, $3, $3, $4, 1, $5, $6, $7, $8, $9, $10, 0, $11::text[], $12, (now() AT TIME ZONE 'UTC'))
       ON CONFLICT ("id") DO NOTHING`,
      [copy.id, copy.accountId, p.normalizedPrompt, p.style, p.ageBucket, p.width, p.height, p.format, p.seed, p.storageKey, p.tags, p.id],
    );
  },

  /**
   * An account's images, newest first, keyset-paged on (createdAt, id): its originals and instant
   * copies, not the size/format variants derived from its own images (those are an image's
   * downloads). One query for the page (limit + 1 rows tell whether there is more), one for the rows
   * with their permalink names.
   */
  async listForAccount(query: ImageListQuery) {
    const params: unknown[] = [query.accountId];
    const where = [
      `i."accountId" = $1`,
      `(i."sourceImageId" IS NULL OR NOT EXISTS (SELECT 1 FROM "Image" s WHERE s."id" = i."sourceImageId" AND s."accountId" = i."accountId"))`,
    ];
    if (query.q) where.push(`i."prompt" ILIKE $${params.push(likePattern(query.q))}`);
    if (query.style) where.push(`i."style" = $${params.push(query.style)}`);
    if (query.from) where.push(`i."createdAt" >= ($${params.push(query.from.toISOString())}::timestamptz AT TIME ZONE 'UTC')`);
    if (query.to) where.push(`i."createdAt" < ($${params.push(query.to.toISOString())}::timestamptz AT TIME ZONE 'UTC')`);
    if (query.cursor) {
      where.push(
        `(i."createdAt", i."id") < (($${params.push(query.cursor.createdAt.toISOString())}::timestamptz AT TIME ZONE 'UTC'), $${params.push(query.cursor.id)}::uuid)`,
      );
    }
    const page = await sql.query<{ id: string }>(
      `SELECT i."id" FROM "Image" i WHERE ${where.join(' AND ')} ORDER BY i."createdAt" DESC, i."id" DESC LIMIT $${params.push(query.limit + 1)}`,
      params,
    );
    const ids = page.slice(0, query.limit).map((r) => r.id);
    const rows =
      ids.length === 0
        ? []
        : await prisma.image.findMany({ where: { id: { in: ids } }, include: { permalinks: { select: { permalink: { select: { name: true } } } } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { images: ids.map((id) => byId.get(id)!).filter(Boolean), hasMore: page.length > query.limit };
  },

  /** One of an account's images with its permalink names, or null. */
  findOwnedWithPermalinks: (id: string, accountId: string) =>
    prisma.image.findFirst({ where: { id, accountId }, include: { permalinks: { select: { permalinkId: true, permalink: { select: { name: true } } } } } }),

  /** The stored size/format variants derived from one of an account's images, oldest first. */
  variantsOf: (id: string, accountId: string) =>
    prisma.image.findMany({ where: { sourceImageId: id, accountId, rejected: false }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),

  /** Newest live original of this exact prompt in any style: render's out-of-quota fallback. */
  findLatestByPrompt: (accountId: string, normalizedPrompt: string) =>
    prisma.image.findFirst({ where: { accountId, normalizedPrompt, rejected: false }, orderBy: { createdAt: 'desc' } }),

  /**
   * Every live image under any of these cache keys' prompts and negative prompts (the caller
   * matches the rest of each key), originals first; one query. Each row names its prompt and
   * negative prompt by position in the keys' lists rather than carrying them: they may be 2,000
   * characters each, and a batch of 50 keys reads up to 2,500 rows.
   */
  async findCachedMany(accountId: string, keys: CacheKey[]): Promise<CachedImageWithKey[]> {
    const prompts = [...new Set(keys.map((k) => k.normalizedPrompt))];
    const negatives = [...new Set(keys.flatMap((k) => (k.negativePrompt === null ? [] : [k.negativePrompt])))];
    const rows = await sql.query<
      CachedImage & Pick<CachedImageWithKey, 'style' | 'characterId' | 'ageBucket' | 'model' | 'inputKey'> & { promptAt: number; negativeAt: number | null }
    >(
      `SELECT ${CACHED_COLUMNS}, "style", "characterId", "ageBucket", "model", "inputKey",
              array_position($2::text[], "normalizedPrompt") AS "promptAt", array_position($3::text[], "negativePrompt") AS "negativeAt"
       FROM "Image"
       WHERE "accountId" = $1 AND "normalizedPrompt" = ANY($2::text[]) AND NOT "rejected"
         AND ("negativePrompt" IS NULL OR "negativePrompt" = ANY($3::text[]))
       ORDER BY ("sourceImageId" IS NULL) DESC, "createdAt" DESC
       LIMIT $4`,
      [accountId, prompts, negatives, 50 * keys.length],
    );
    return rows.map(({ promptAt, negativeAt, ...row }) => ({
      ...row,
      normalizedPrompt: prompts[promptAt - 1],
      negativePrompt: negativeAt === null ? null : negatives[negativeAt - 1],
    }));
  },

  /**
   * Every image stored under one render-cache key (originals and variants); one indexed query.
   * Originals first: however many sizes were derived, the original is never past the limit.
   */
  findCached(key: CacheKey): Promise<CachedImage[]> {
    const { text, params } = cachedSelect(key);
    return sql.query<CachedImage>(text, params);
  },

  /**
   * The images under a cache key and, only when there are none, a quota reservation: one
   * statement for a fresh generation's two reads. `reservedUsed` is the new used, or null when
   * nothing was reserved (images found, quota used up, or the window moved on).
   */
  findCachedOrReserve: (key: CacheKey, quota: QuotaClaim): Promise<CachedOrReserved> => findCachedOrReserveOne(sql, key, quota),

  /**
   * `findCachedOrReserve` for many lookups at once (the gateway's group commit): one statement,
   * or one per set of lookups in which each account has one window and limit (`statementsFor`).
   * Answers in the lookups' order.
   */
  async findCachedOrReserveMany(lookups: readonly CacheLookupWithClaim[]): Promise<CachedOrReserved[]> {
    // Alone in its turn (light load): the single statement, which plans in a fraction of the time.
    if (lookups.length === 1) return [await findCachedOrReserveOne(sql, lookups[0].key, lookups[0].quota)];
    const answers: CachedOrReserved[] = new Array(lookups.length);
    for (const indexes of statementsFor(lookups.map((l) => ({ accountId: l.key.accountId, ...l.quota })))) {
      const found = await findCachedOrReserveStatement(
        sql,
        indexes.map((i) => lookups[i]),
      );
      indexes.forEach((index, j) => {
        answers[index] = found[j];
      });
    }
    return answers;
  },
});

export type ImageRepository = ReturnType<typeof createImageRepository>;
