import type { LibraryImage } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';
import { Prisma } from '../generated/client';

export interface LibraryQuery {
  normalizedPrompt: string;
  style: string | null;
  ageBucket?: string | null;
  /** The image must carry all of these taxonomy slugs. */
  tags?: string[];
  /** Only images created at or before this instant are in the library. */
  joinedBefore: Date;
}

/** A library image and the pg_trgm similarity (0..1) of its prompt to the one asked for. */
export type LibraryMatch = LibraryImage;

/**
 * The shared library: original images (not variants or instant copies) old enough to have
 * joined it. Nearest prompt by trigram distance through the GiST index, one query.
 */
export function nearestLibraryImageSql(q: LibraryQuery): Prisma.Sql {
  const filters: Prisma.Sql[] = [
    // `%` (similarity above pg_trgm.similarity_threshold, 0.3) lets the planner use the index
    // to find candidates instead of ranking every row; exact prompts always pass it.
    Prisma.sql`"normalizedPrompt" % ${q.normalizedPrompt}`,
    Prisma.sql`"sourceImageId" IS NULL`,
    Prisma.sql`"createdAt" <= ${q.joinedBefore}`,
    Prisma.sql`"style" IS NOT DISTINCT FROM ${q.style}`,
  ];
  if (q.ageBucket) filters.push(Prisma.sql`"ageBucket" = ${q.ageBucket}`);
  if (q.tags && q.tags.length > 0) filters.push(Prisma.sql`"tags" @> ${q.tags}::text[]`);
  return Prisma.sql`
    SELECT "id", "normalizedPrompt", "style", "storageKey", "width", "height", "format", "seed"::float8 AS "seed", "ageBucket", "tags",
           similarity("normalizedPrompt", ${q.normalizedPrompt}) AS "score"
    FROM "Image"
    WHERE ${Prisma.join(filters, ' AND ')}
    ORDER BY "normalizedPrompt" <-> ${q.normalizedPrompt}
    LIMIT 1`;
}

export const createLibraryRepository = (prisma: PrismaClient) => ({
  async nearest(q: LibraryQuery): Promise<LibraryMatch | null> {
    const rows = await prisma.$queryRaw<LibraryMatch[]>(nearestLibraryImageSql(q));
    return rows.length > 0 ? { ...rows[0], score: Number(rows[0].score) } : null;
  },

  async count(joinedBefore: Date): Promise<number> {
    return prisma.image.count({ where: { sourceImageId: null, createdAt: { lte: joinedBefore } } });
  },
});

export type LibraryRepository = ReturnType<typeof createLibraryRepository>;
