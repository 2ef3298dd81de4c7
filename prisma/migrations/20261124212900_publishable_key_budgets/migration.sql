-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "budgetClientPerDay" INTEGER,
ADD COLUMN     "budgetClientPerHour" INTEGER,
ADD COLUMN     "budgetHitAt" TIMESTAMP(3),
ADD COLUMN     "budgetKeyPerDay" INTEGER,
ADD COLUMN     "budgetKeyPerHour" INTEGER,
ADD COLUMN     "signedPrompts" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "signingSecret" TEXT;
