-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateEnum
CREATE TYPE "CharacterBehavior" AS ENUM ('match', 'lock');

-- CreateTable
CREATE TABLE "Character" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "specSheet" TEXT,
    "behavior" "CharacterBehavior" NOT NULL DEFAULT 'match',
    "lockedStyle" TEXT,
    "lockedFamily" TEXT,
    "sourceVersion" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Character_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CharacterReference" (
    "id" UUID NOT NULL,
    "characterId" UUID NOT NULL,
    "storageKey" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CharacterReference_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PreparedReference" (
    "id" UUID NOT NULL,
    "characterId" UUID NOT NULL,
    "family" TEXT NOT NULL,
    "sourceVersion" INTEGER NOT NULL,
    "storageKey" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PreparedReference_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Character_accountId_createdAt_idx" ON "Character"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "CharacterReference_characterId_position_idx" ON "CharacterReference"("characterId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "PreparedReference_characterId_family_sourceVersion_key" ON "PreparedReference"("characterId", "family", "sourceVersion");

-- AddForeignKey
ALTER TABLE "Character" ADD CONSTRAINT "Character_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CharacterReference" ADD CONSTRAINT "CharacterReference_characterId_fkey" FOREIGN KEY ("characterId") REFERENCES "Character"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PreparedReference" ADD CONSTRAINT "PreparedReference_characterId_fkey" FOREIGN KEY ("characterId") REFERENCES "Character"("id") ON DELETE CASCADE ON UPDATE CASCADE;
