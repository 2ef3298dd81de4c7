-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateEnum
CREATE TYPE "AccountStatus" AS ENUM ('pending', 'approved', 'suspended', 'banned');

-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('free', 'hobby', 'pro', 'business', 'enterprise');

-- CreateEnum
CREATE TYPE "KeyKind" AS ENUM ('secret', 'publishable');

-- CreateTable
CREATE TABLE "Account" (
    "id" UUID NOT NULL,
    "handle" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "plan" "Plan" NOT NULL DEFAULT 'free',
    "status" "AccountStatus" NOT NULL DEFAULT 'pending',
    "monthlyGenerations" INTEGER,
    "quotaUsed" INTEGER NOT NULL DEFAULT 0,
    "quotaPeriodStart" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "kind" "KeyKind" NOT NULL,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "domains" TEXT[],
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Image" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "prompt" TEXT NOT NULL,
    "normalizedPrompt" TEXT NOT NULL,
    "style" TEXT,
    "strength" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "characterId" UUID,
    "ageBucket" TEXT,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "format" TEXT NOT NULL,
    "seed" INTEGER NOT NULL,
    "storageKey" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "rejected" BOOLEAN NOT NULL DEFAULT false,
    "sourceImageId" UUID,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "jobId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Image_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Permalink" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "rotation" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Permalink_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PermalinkImage" (
    "permalinkId" UUID NOT NULL,
    "imageId" UUID NOT NULL,
    "addedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PermalinkImage_pkey" PRIMARY KEY ("permalinkId","imageId")
);

-- CreateTable
CREATE TABLE "Style" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "baseStyle" TEXT,
    "promptTemplate" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Style_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AnalyticsEvent" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "eventType" TEXT NOT NULL,
    "imageId" UUID,
    "metadata" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AnalyticsEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Account_handle_key" ON "Account"("handle");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_hash_key" ON "ApiKey"("hash");

-- CreateIndex
CREATE INDEX "ApiKey_accountId_idx" ON "ApiKey"("accountId");

-- CreateIndex
CREATE INDEX "Image_accountId_normalizedPrompt_style_characterId_ageBucke_idx" ON "Image"("accountId", "normalizedPrompt", "style", "characterId", "ageBucket");

-- CreateIndex
CREATE INDEX "Image_createdAt_idx" ON "Image"("createdAt");

-- CreateIndex
CREATE INDEX "Image_normalizedPrompt_trgm_idx" ON "Image" USING GIST ("normalizedPrompt" gist_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "Permalink_accountId_name_key" ON "Permalink"("accountId", "name");

-- CreateIndex
CREATE INDEX "PermalinkImage_imageId_idx" ON "PermalinkImage"("imageId");

-- CreateIndex
CREATE INDEX "Style_accountId_createdAt_idx" ON "Style"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "AnalyticsEvent_accountId_createdAt_idx" ON "AnalyticsEvent"("accountId", "createdAt");

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Image" ADD CONSTRAINT "Image_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Permalink" ADD CONSTRAINT "Permalink_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PermalinkImage" ADD CONSTRAINT "PermalinkImage_permalinkId_fkey" FOREIGN KEY ("permalinkId") REFERENCES "Permalink"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PermalinkImage" ADD CONSTRAINT "PermalinkImage_imageId_fkey" FOREIGN KEY ("imageId") REFERENCES "Image"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Style" ADD CONSTRAINT "Style_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnalyticsEvent" ADD CONSTRAINT "AnalyticsEvent_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
