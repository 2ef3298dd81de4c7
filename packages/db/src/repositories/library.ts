import type { LibraryCandidate, LibraryMeaningQuery, LibraryQuery, MeaningVector } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';
import { Prisma } from '../generated/client';

export type { LibraryQuery };

/**
 * At most this many rows sharing a key with the query are scored by cosine: the bound on one
 * match's work however large the library grows (keys are specific concepts, so few rows share one).
 */
export const MEANING_CANDIDATE_LIMIT = 500;

const COLUMNS = Prisma.sql`"id", "normalizedPrompt", "style", "storageKey", "width", "height", "format", "seed"::float8 AS "seed", "ageBucket", "tags"`;

/** The shared library: original images (not variants or instant copies) old enough to have joined it, filtered. */
function libraryFilters(q: LibraryQuery): Prisma.Sql[] {
  const filters: Prisma.Sql[] = [
    Prisma.sql`"sourceImageId" IS NULL`,
    Prisma.sql`"createdAt" <= ${q.joinedBefore}`,
    Prisma.sql`"style" IS NOT DISTINCT FROM ${q.style}`,
  ];
  if (q.ageBucket) filters.push(Prisma.sql`"ageBucket" = ${q.ageBucket}`);
  if (q.tags && q.tags.length > 0) filters.push(Prisma.sql`"tags" @> ${q.tags}::text[]`);
  return filters;
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
 * (GiST; `%` keeps the planner on the index, and exact prompts always pass it). With one: the
 * exact prompt (btree), and the best cosine among the rows sharing one of the vector's keys (GIN),
 * at most MEANING_CANDIDATE_LIMIT of them, each with its trigram similarity too. Near-exact
 * prompts share nearly all concepts, so the semantic part finds them; trigram KNN, which cannot
 * prune a large varied library, is left out of that path except over the rows not embedded yet.
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
  const exact = Prisma.sql`
    (SELECT ${COLUMNS}, 1::float8 AS "trigram", ${cosineSql('"Image"', q.meaning)} AS "cosine"
     FROM "Image"
     WHERE "normalizedPrompt" = ${q.normalizedPrompt} AND ${filters}
     LIMIT 1)`;
  const semantic = Prisma.sql`
    (SELECT ${COLUMNS}, similarity("normalizedPrompt", ${q.normalizedPrompt})::float8 AS "trigram", "cosine"
     FROM (SELECT *, ${cosineSql('c', q.meaning)} AS "cosine"
           FROM (SELECT * FROM "Image"
                 WHERE "meaningKeys" && ${q.meaning.vector.keys}::int[] AND "meaningSpace" = ${q.meaning.space} AND ${filters}
                 LIMIT ${MEANING_CANDIDATE_LIMIT}) AS c) AS scored
     ORDER BY "cosine" DESC
     LIMIT 1)`;
  // Images the indexer has not embedded yet (a moment after they are made, or while a new adapter
  // backfills) are still found by spelling; the btree index on "meaningSpace" keeps this to them.
  const unembedded = Prisma.sql`
    (SELECT ${COLUMNS}, similarity("normalizedPrompt", ${q.normalizedPrompt})::float8 AS "trigram", NULL::float8 AS "cosine"
     FROM "Image"
     WHERE ("meaningSpace" IS NULL OR "meaningSpace" < ${q.meaning.space} OR "meaningSpace" > ${q.meaning.space})
       AND "normalizedPrompt" % ${q.normalizedPrompt} AND ${filters}
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
    return prisma.image.count({ where: { sourceImageId: null, createdAt: { lte: joinedBefore } } });
  },

  /**
   * Originals whose meaning vector is missing or from another space: the indexer's next batch.
   * (`< OR >` rather than `<>`, so the btree index on "meaningSpace" finds them without a scan.)
   */
  async unindexed(space: string, limit: number): Promise<Array<{ id: string; normalizedPrompt: string }>> {
    return prisma.$queryRaw<Array<{ id: string; normalizedPrompt: string }>>`
      SELECT "id", "normalizedPrompt" FROM "Image"
      WHERE "sourceImageId" IS NULL AND ("meaningSpace" IS NULL OR "meaningSpace" < ${space} OR "meaningSpace" > ${space})
      LIMIT ${limit}`;
  },

  /** Stores meaning vectors, one UPDATE for the batch. */
  async saveMeanings(space: string, rows: Array<{ id: string; vector: MeaningVector }>): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map(
      (r) => Prisma.sql`(${r.id}::uuid, ${r.vector.keys}::int[], ${r.vector.terms}::int[], ${r.vector.weights}::real[])`,
    );
    await prisma.$executeRaw`
      UPDATE "Image" AS i SET "meaningSpace" = ${space}, "meaningKeys" = v.keys, "meaningTerms" = v.terms, "meaningWeights" = v.weights
      FROM (VALUES ${Prisma.join(values)}) AS v(id, keys, terms, weights)
      WHERE i."id" = v.id`;
  },
});

export type LibraryRepository = ReturnType<typeof createLibraryRepository>;
