-- AlterTable
ALTER TABLE "AnalyticsEvent" ADD COLUMN     "count" INTEGER NOT NULL DEFAULT 1;
