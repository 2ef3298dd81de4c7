-- CreateTable
CREATE TABLE "FailedJob" (
    "jobId" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "request" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "failedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retriedAs" TEXT,
    "retriedAt" TIMESTAMP(3),

    CONSTRAINT "FailedJob_pkey" PRIMARY KEY ("jobId")
);

-- CreateIndex
CREATE INDEX "FailedJob_failedAt_idx" ON "FailedJob"("failedAt");

-- CreateIndex
CREATE INDEX "FailedJob_accountId_failedAt_idx" ON "FailedJob"("accountId", "failedAt");

-- AddForeignKey
ALTER TABLE "FailedJob" ADD CONSTRAINT "FailedJob_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
