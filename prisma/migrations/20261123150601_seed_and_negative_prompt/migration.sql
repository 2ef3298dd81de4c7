-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- AlterTable
ALTER TABLE "Image" ADD COLUMN     "negativePrompt" TEXT,
ALTER COLUMN "seed" SET DATA TYPE BIGINT;
