-- DropIndex
DROP INDEX "Image_meaningSpace_idx";

-- CreateTable
CREATE TABLE "LibraryMeaningKey" (
    "space" TEXT NOT NULL,
    "key" INTEGER NOT NULL,
    "rows" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "LibraryMeaningKey_pkey" PRIMARY KEY ("space","key")
);

-- CreateIndex
CREATE INDEX "Image_sourceImageId_meaningSpace_idx" ON "Image"("sourceImageId", "meaningSpace");

-- Counts of the originals embedded before this migration
INSERT INTO "LibraryMeaningKey" ("space", "key", "rows")
SELECT i."meaningSpace", k.key, count(*)::int
FROM "Image" AS i, unnest(i."meaningKeys") AS k(key)
WHERE i."sourceImageId" IS NULL AND i."meaningSpace" IS NOT NULL
GROUP BY i."meaningSpace", k.key;
