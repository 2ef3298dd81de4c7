/**
 * The hot paths' database reads in isolation, in the bench process, against the bench database
 * and the scenarios' own data: the repository method the gateway calls today next to the same
 * answer through the Prisma ORM (how the cache lookups were written before they moved to the
 * SQL client) and as one SQL statement through Prisma ($queryRawUnsafe) or `pg` directly.
 * Sequential calls; wall time and this process's CPU per call.
 */
import { performance } from 'node:perf_hooks';
import { hashApiKey, type CacheKey } from '@promptpix/core';
import { createApiKeyRepository, createImageRepository, createPermalinkRepository, openDatabase } from '@promptpix/db';
import pg from 'pg';
import type { Ctx } from '../context';
import { summarize } from '../load';
import { PG } from '../stack';

export interface DbPathInputs {
  permalink: { handle: string; name: string };
  embed: { accountId: string; prompts: string[] };
  render: { accountId: string; prompt: string };
  key: string;
}

export interface DbPathRow {
  path: string;
  variant: string;
  /** Counted on the wire (the calls go through the PostgreSQL counting proxy). */
  roundTrips: number;
  p50Ms: number;
  meanMs: number;
  cpuUsPerCall: number;
  rows: number;
}

const PERMALINK_SQL = `
  SELECT p."id", p."accountId", p."rotation",
         COALESCE((SELECT json_agg(json_build_object('imageId', pi."imageId", 'addedAt', pi."addedAt", 'storageKey', i."storageKey", 'pinned', i."pinned", 'rejected', i."rejected"))
                   FROM "PermalinkImage" pi JOIN "Image" i ON i."id" = pi."imageId" WHERE pi."permalinkId" = p."id"), '[]') AS "images",
         COALESCE((SELECT json_agg(k."domains") FROM "ApiKey" k WHERE k."accountId" = p."accountId" AND k."kind" = 'publishable' AND k."revokedAt" IS NULL), '[]') AS "keyDomains"
  FROM "Permalink" p JOIN "Account" a ON a."id" = p."accountId"
  WHERE a."handle" = $1 AND p."name" = $2`;

const EMBED_SQL = `
  SELECT "id", "storageKey", "width", "height", "format", "sourceImageId", "rejected", "createdAt", "normalizedPrompt", "style", "characterId", "ageBucket"
  FROM "Image" WHERE "accountId" = $1::uuid AND "rejected" = false AND "normalizedPrompt" = ANY($2::text[])
  ORDER BY "createdAt" DESC LIMIT $3`;

const RENDER_SQL = `
  SELECT "id", "storageKey", "width", "height", "format", "sourceImageId", "rejected", "createdAt"
  FROM "Image" WHERE "accountId" = $1::uuid AND "normalizedPrompt" = $2 AND "style" IS NULL AND "characterId" IS NULL AND "ageBucket" IS NULL AND "rejected" = false
  ORDER BY "createdAt" DESC LIMIT 50`;

const KEY_SQL = `
  SELECT k."id", k."kind", k."domains", k."revokedAt", row_to_json(a) AS "account"
  FROM "ApiKey" k JOIN "Account" a ON a."id" = k."accountId" WHERE k."hash" = $1`;

async function time(ctx: Ctx, n: number, fn: () => Promise<unknown>) {
  for (let i = 0; i < Math.min(30, n); i++) await fn();
  ctx.counting!.pg.reset();
  const walls: number[] = [];
  let rows = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await fn();
    walls.push(performance.now() - t);
    rows = Array.isArray(r) ? r.length : r ? 1 : 0;
  }
  const cpu = process.cpuUsage(cpu0);
  const s = summarize(walls);
  const roundTrips = Math.round((ctx.counting!.pg.read().roundTrips / n) * 100) / 100;
  return { p50Ms: s.p50, meanMs: s.mean, cpuUsPerCall: Math.round((cpu.user + cpu.system) / n), rows, roundTrips };
}

export async function runDbPaths(ctx: Ctx, inputs: DbPathInputs, n = 300): Promise<DbPathRow[]> {
  const { stack, log } = ctx;
  if (!ctx.counting) throw new Error('db paths need the counting proxies (run the http phase first)');
  // Both clients go through the PostgreSQL counting proxy, so round trips are counted, not assumed.
  const viaProxy = `postgresql://${PG.user}@127.0.0.1:${ctx.counting.pg.port}/${stack.dbName}`;
  const db = await openDatabase({ kind: 'postgres', url: viaProxy, poolSize: 4 });
  const prisma = db.prisma;
  const pool = new pg.Pool({ connectionString: viaProxy, max: 4 });
  const permalinks = createPermalinkRepository(prisma);
  const images = createImageRepository(prisma, db.sql);
  const ormFindCached = (k: CacheKey) =>
    prisma.image.findMany({
      where: {
        accountId: k.accountId,
        normalizedPrompt: k.normalizedPrompt,
        style: k.style,
        characterId: k.characterId,
        ageBucket: k.ageBucket,
        rejected: false,
      },
      select: { id: true, storageKey: true, width: true, height: true, format: true, sourceImageId: true, rejected: true, createdAt: true },
      orderBy: { createdAt: 'desc' },
      take: 50,
    });
  const apiKeys = createApiKeyRepository(prisma, db.sql);
  const hash = hashApiKey(inputs.key);
  const cacheKeys = inputs.embed.prompts.map((normalizedPrompt) => ({
    accountId: inputs.embed.accountId,
    normalizedPrompt,
    style: null,
    characterId: null,
    ageBucket: null,
    seed: null,
    negativePrompt: null,
    model: null,
    inputKey: null,
  }));
  const renderKey = {
    accountId: inputs.render.accountId,
    normalizedPrompt: inputs.render.prompt,
    style: null,
    characterId: null,
    ageBucket: null,
    seed: null,
    negativePrompt: null,
    model: null,
    inputKey: null,
  };
  const cases: Array<[string, string, () => Promise<unknown>]> = [
    ['permalink serve', 'Prisma, as today (findForServing)', () => permalinks.findForServing(inputs.permalink.handle, inputs.permalink.name)],
    ['permalink serve', 'one SQL via Prisma $queryRawUnsafe', () => prisma.$queryRawUnsafe(PERMALINK_SQL, inputs.permalink.handle, inputs.permalink.name)],
    ['permalink serve', 'one SQL via pg', async () => (await pool.query(PERMALINK_SQL, [inputs.permalink.handle, inputs.permalink.name])).rows],
    [
      'embed: 50 cache keys',
      'Prisma ORM findMany, IN of 50 (before)',
      () =>
        prisma.image.findMany({
          where: { accountId: inputs.embed.accountId, rejected: false, normalizedPrompt: { in: inputs.embed.prompts } },
          orderBy: { createdAt: 'desc' },
          take: 2500,
        }),
    ],
    [
      'embed: 50 cache keys',
      'one SQL via Prisma $queryRawUnsafe (= ANY array)',
      () => prisma.$queryRawUnsafe(EMBED_SQL, inputs.embed.accountId, inputs.embed.prompts, 2500),
    ],
    [
      'embed: 50 cache keys',
      'one SQL via pg (= ANY array)',
      async () => (await pool.query(EMBED_SQL, [inputs.embed.accountId, inputs.embed.prompts, 2500])).rows,
    ],
    ['embed: 50 cache keys', 'repository, as today (findCachedMany: SQL client on pg)', () => images.findCachedMany(inputs.embed.accountId, cacheKeys)],
    ['render: one cache key', 'Prisma ORM findMany (before)', () => ormFindCached(renderKey)],
    ['render: one cache key', 'one SQL via pg', async () => (await pool.query(RENDER_SQL, [inputs.render.accountId, inputs.render.prompt])).rows],
    ['render: one cache key', 'repository, as today (findCached: SQL client on pg)', () => images.findCached(renderKey)],
    [
      'key lookup (cache miss)',
      'Prisma findUnique + include account (before)',
      () => prisma.apiKey.findUnique({ where: { hash }, include: { account: { omit: { webhookSecret: true } } } }),
    ],
    ['key lookup (cache miss)', 'one joined SQL via SqlClient, as today (findActiveByHash)', () => apiKeys.findActiveByHash(hash)],
    ['key lookup (cache miss)', 'one SQL via pg (join)', async () => (await pool.query(KEY_SQL, [hash])).rows],
  ];
  const rows: DbPathRow[] = [];
  try {
    for (const [path, variant, fn] of cases) {
      const r = await time(ctx, path.startsWith('embed') ? Math.round(n / 2) : n, fn);
      rows.push({ path, variant, ...r });
      log(`db: ${path} — ${variant}: ${r.roundTrips} round trips, p50 ${r.p50Ms} ms, ${r.cpuUsPerCall} µs CPU/call, ${r.rows} row(s)`);
    }
  } finally {
    await db.close();
    await pool.end();
  }
  return rows;
}
