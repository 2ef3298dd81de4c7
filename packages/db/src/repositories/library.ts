import type { LibraryCandidate, LibraryMeaningQuery, LibraryQuery, MeaningVector } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';
import { Prisma } from '../generated/client';

export type { LibraryQuery };

/**
 * The first stage reads at most about this many rows: the posting lists of the query's rarest keys
 * (by the per-key counts in "LibraryMeaningKey"), as many keys as fit, at least the rarest one.
 * A rare concept ("lighthouse") says more about a prompt than a common one ("evening"), and the
 * rows it reaches stay a bounded slice of the library however large it grows.
 */
export const KEY_ROW_BUDGET = 1500;
/** The first stage's best, by how many of the query's keys they carry, are scored by exact cosine. */
export const COSINE_CANDIDATES = 60;
/** Images not embedded yet are compared by spelling, at most this many of them. */
export const UNEMBEDDED_LIMIT = 200;

const COLUMNS = Prisma.sql`"id", "normalizedPrompt", "style", "storageKey", "width", "height", "format", "seed"::float8 AS "seed", "ageBucket", "tags"`;

/**
 * The shared library: original images (not variants or instant copies) old enough to have joined it,
 * filtered. An edit's image never joins: it shows what its account sent in.
 */
function libraryFilters(q: LibraryQuery): Prisma.Sql[] {
  const filters: Prisma.Sql[] = [
    Prisma.sql`"sourceImageId" IS NULL`,
    Prisma.sql`"inputKey" IS NULL`,
    Prisma.sql`"createdAt" <= ${q.joinedBefore}`,
    Prisma.sql`"style" IS NOT DISTINCT FROM ${q.style}`,
  ];
  if (q.ageBucket) filters.push(Prisma.sql`"ageBucket" = ${q.ageBucket}`);
  if (q.tags && q.tags.length > 0) filters.push(Prisma.sql`"tags" @> ${q.tags}::text[]`);
  return filters;
}

/**
 * The first stage's rank of a candidate `c`: how many of the query's keys it carries, one `= ANY`
 * per key (plain array comparisons; a subquery per row cost as much as the cosine). Unweighted,
 * because a dense adapter's keys are band hashes, not terms with a weight.
 */
function sharedKeysSql(v: MeaningVector): Prisma.Sql {
  return Prisma.sql`(${Prisma.join(
    v.keys.map((key) => Prisma.sql`(${key}::int = ANY(c."meaningKeys"))::int`),
    ' + ',
  )})`;
}

/** The cosine of a row's stored vector with the query's (both unit length), 0 when another space. */
function cosineSql(alias: string, m: LibraryMeaningQuery | undefined): Prisma.Sql {
  if (!m) return Prisma.sql`NULL::float8`;
  const row = Prisma.raw(alias);
  return Prisma.sql`(SELECT CASE WHEN ${row}."meaningSpace" = ${m.space} THEN coalesce(sum(q.w * d.w), 0)::float8 END
      FROM unnest(${m.vector.terms}::int[], ${m.vector.weights}::real[]) AS q(t, w)
      JOIN unnest(${row}."meaningTerms", ${row}."meaningWeights") AS d(t, w) ON d.t = q.t)`;
}

/**
 * One query, up to three rows. Without a meaning vector: the nearest prompt by trigram distance
 * (GiST; `%` keeps the planner on the index, and exact prompts always pass it). With one:
 * - the exact prompt (the trigram GiST index answers `=`);
 * - by meaning, in two stages: the rows carrying the query's rarest keys (GIN; at most about
 *   KEY_ROW_BUDGET), ranked by how many of all the query's keys they carry; the best
 *   COSINE_CANDIDATES of them scored by exact cosine, the best one returned with its trigram
 *   similarity. Near-exact prompts share nearly all keys, so they rank first;
 * - by spelling, among at most UNEMBEDDED_LIMIT images the indexer has not embedded yet.
 * Trigram KNN, which cannot prune a large varied library, is left out of the path with a vector.
 */
export function nearestLibraryImageSql(q: LibraryQuery): Prisma.Sql {
  const filters = Prisma.join(libraryFilters(q), ' AND ');
  if (!q.meaning || q.meaning.vector.keys.length === 0) {
    return Prisma.sql`
      SELECT ${COLUMNS}, similarity("normalizedPrompt", ${q.normalizedPrompt})::float8 AS "trigram", ${cosineSql('"Image"', q.meaning)} AS "cosine"
      FROM "Image"
      WHERE "normalizedPrompt" % ${q.normalizedPrompt} AND ${filters}
      ORDER BY "normalizedPrompt" <-> ${q.normalizedPrompt}
      LIMIT 1`;
  }
  const { space, vector } = q.meaning;
  const exact = Prisma.sql`
    (SELECT ${COLUMNS}, 1::float8 AS "trigram", ${cosineSql('"Image"', q.meaning)} AS "cosine"
     FROM "Image"
     WHERE "normalizedPrompt" = ${q.normalizedPrompt} AND ${filters}
     LIMIT 1)`;
  // The rarest keys whose rows add up to the budget (always the rarest one with any rows). OFFSET 0
  // keeps each key's count a single index lookup (the window would otherwise repeat it). Negative
  // keys are secondary (the embedded default's band keys of its word vectors): taken only after
  // every other key, because a band bucket can be rare by chance and hold only unrelated rows,
  // while a rare concept ("lighthouse") says what the prompt is about. They still rank the rows.
  const rareKeys = Prisma.sql`
    (SELECT coalesce(array_agg(r.key), '{}') FROM (
       SELECT key, n, sum(n) OVER (ORDER BY key < 0, n, key) AS upto
       FROM (SELECT k.key, coalesce((SELECT s."rows" FROM "LibraryMeaningKey" AS s WHERE s."space" = ${space} AND s."key" = k.key), 0) AS n
             FROM unnest(${vector.keys}::int[]) AS k(key)
             OFFSET 0) AS counted) AS r
     WHERE r.upto <= ${KEY_ROW_BUDGET} OR r.upto = r.n)`;
  const semantic = Prisma.sql`
    (SELECT ${COLUMNS}, similarity("normalizedPrompt", ${q.normalizedPrompt})::float8 AS "trigram", "cosine"
     FROM (SELECT *, ${cosineSql('ranked', q.meaning)} AS "cosine"
           FROM (SELECT * FROM (
                   SELECT *, ${sharedKeysSql(vector)} AS "sharedKeys"
                   FROM "Image" AS c
                   WHERE "meaningKeys" && ${rareKeys} AND "meaningSpace" = ${space} AND ${filters}
                   LIMIT ${KEY_ROW_BUDGET}) AS stage1
                 ORDER BY "sharedKeys" DESC
                 LIMIT ${COSINE_CANDIDATES}) AS ranked) AS scored
     ORDER BY "cosine" DESC
     LIMIT 1)`;
  // Images the indexer has not embedded yet (a moment after they are made, or while a new adapter
  // backfills) are still found by spelling; the (sourceImageId, meaningSpace) index finds them.
  // similarity() rather than `%`, so the planner never turns this into a trigram index scan.
  const unembedded = Prisma.sql`
    (SELECT ${COLUMNS}, similarity("normalizedPrompt", ${q.normalizedPrompt})::float8 AS "trigram", NULL::float8 AS "cosine"
     FROM (SELECT * FROM "Image"
           WHERE ("meaningSpace" IS NULL OR "meaningSpace" < ${space} OR "meaningSpace" > ${space}) AND ${filters}
           LIMIT ${UNEMBEDDED_LIMIT}) AS pending
     ORDER BY "trigram" DESC
     LIMIT 1)`;
  return Prisma.sql`${exact} UNION ALL ${semantic} UNION ALL ${unembedded}`;
}

export const createLibraryRepository = (prisma: PrismaClient) => ({
  /** The library's best candidates for a prompt (lexical and by meaning); the caller scores them. */
  async candidates(q: LibraryQuery): Promise<LibraryCandidate[]> {
    const rows = await prisma.$queryRaw<LibraryCandidate[]>(nearestLibraryImageSql(q));
    return rows.map((row) => ({ ...row, trigram: Number(row.trigram), cosine: row.cosine === null ? null : Number(row.cosine) }));
  },

  async count(joinedBefore: Date): Promise<number> {
    return prisma.image.count({ where: { sourceImageId: null, inputKey: null, createdAt: { lte: joinedBefore } } });
  },

  /**
   * Originals whose meaning vector is missing or from another space: the indexer's next batch.
   * (`< OR >` rather than `<>`, so the btree index on "meaningSpace" finds them without a scan.)
   */
  async unindexed(space: string, limit: number): Promise<Array<{ id: string; normalizedPrompt: string }>> {
    return prisma.$queryRaw<Array<{ id: string; normalizedPrompt: string }>>`
      SELECT "id", "normalizedPrompt" FROM "Image"
      WHERE "sourceImageId" IS NULL AND "inputKey" IS NULL AND ("meaningSpace" IS NULL OR "meaningSpace" < ${space} OR "meaningSpace" > ${space})
      LIMIT ${limit}`;
  },

  /**
   * Stores meaning vectors and adds their keys to the per-key counts, in one statement. A row that
   * already has a vector of this space (another indexer got there first) is neither updated nor
   * counted again. The batch travels as one JSON parameter: as four array parameters a row, a
   * batch of 1,000 cost the client about 1.5 ms a row to bind.
   */
  async saveMeanings(space: string, rows: Array<{ id: string; vector: MeaningVector }>): Promise<void> {
    if (rows.length === 0) return;
    const batch = JSON.stringify(rows.map((r) => ({ id: r.id, keys: r.vector.keys, terms: r.vector.terms, weights: r.vector.weights })));
    await prisma.$executeRaw`
      WITH v AS (
        SELECT * FROM jsonb_to_recordset(${batch}::jsonb) AS v(id uuid, keys int[], terms int[], weights real[])),
      saved AS (
        UPDATE "Image" AS i SET "meaningSpace" = ${space}, "meaningKeys" = v.keys, "meaningTerms" = v.terms, "meaningWeights" = v.weights
        FROM v
        WHERE i."id" = v.id AND i."meaningSpace" IS DISTINCT FROM ${space}
        RETURNING i."sourceImageId", v.keys)
      INSERT INTO "LibraryMeaningKey" ("space", "key", "rows")
      SELECT ${space}, k.key, count(*)::int FROM saved, unnest(saved.keys) AS k(key)
      WHERE saved."sourceImageId" IS NULL
      GROUP BY k.key
      ORDER BY k.key
      ON CONFLICT ("space", "key") DO UPDATE SET "rows" = "LibraryMeaningKey"."rows" + excluded."rows"`;
  },

  /** How many library originals of a space carry each of these keys (0 for a key none carries). */
  async keyCounts(space: string, keys: number[]): Promise<Map<number, number>> {
    const rows = await prisma.$queryRaw<Array<{ key: number; rows: number }>>`
      SELECT "key", "rows" FROM "LibraryMeaningKey" WHERE "space" = ${space} AND "key" = ANY(${keys}::int[])`;
    const counts = new Map(keys.map((key) => [key, 0]));
    for (const row of rows) counts.set(row.key, row.rows);
    return counts;
  },
});

export type LibraryRepository = ReturnType<typeof createLibraryRepository>;
