-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- AlterTable
ALTER TABLE "Image" ADD COLUMN     "meaningKeys" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
ADD COLUMN     "meaningSpace" TEXT,
ADD COLUMN     "meaningTerms" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
ADD COLUMN     "meaningWeights" REAL[] DEFAULT ARRAY[]::REAL[];

-- CreateIndex
CREATE INDEX "Image_meaningKeys_idx" ON "Image" USING GIN ("meaningKeys");

-- CreateIndex
CREATE INDEX "Image_meaningSpace_idx" ON "Image"("meaningSpace");
