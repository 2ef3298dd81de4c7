-- AlterTable
ALTER TABLE "Image" ADD COLUMN "model" TEXT;
