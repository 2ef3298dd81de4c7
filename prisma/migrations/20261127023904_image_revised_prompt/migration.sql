-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- AlterTable
ALTER TABLE "Image" ADD COLUMN     "revisedPrompt" TEXT;
