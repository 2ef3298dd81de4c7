-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- AlterTable
ALTER TABLE "Image" ADD COLUMN     "derivedSizes" INTEGER NOT NULL DEFAULT 0;

-- Backfill: the places the existing variants of the same account hold (an instant copy points at another account's library image).
UPDATE "Image" AS o SET "derivedSizes" = v.n
FROM (SELECT "sourceImageId" AS id, "accountId", count(*)::int AS n FROM "Image" WHERE "sourceImageId" IS NOT NULL GROUP BY "sourceImageId", "accountId") AS v
WHERE o."id" = v.id AND o."accountId" = v."accountId";
