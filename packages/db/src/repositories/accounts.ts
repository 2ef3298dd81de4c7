import type { SqlClient } from '../sql';
import type { PrismaClient } from '../generated/client';
import type { QuotaStore } from '@promptpix/core';
import type { AccountStatus, Plan } from '../generated/enums';

export interface NewAccount {
  handle: string;
  email: string;
  plan?: Plan;
  status?: AccountStatus;
  monthlyGenerations?: number | null;
}

export interface AccountPatch {
  status?: AccountStatus;
  plan?: Plan;
  monthlyGenerations?: number | null;
}

export const createAccountRepository = (prisma: PrismaClient) => ({
  create: (account: NewAccount) => prisma.account.create({ data: account }),
  findByHandle: (handle: string) => prisma.account.findUnique({ where: { handle } }),
  /** Every account using this address, case-insensitively (an address is not unique). */
  findByEmail: (email: string) => prisma.account.findMany({ where: { email: { equals: email.trim(), mode: 'insensitive' } }, orderBy: { createdAt: 'asc' } }),
  findById: (id: string) => prisma.account.findUnique({ where: { id } }),
  update: (handle: string, patch: AccountPatch) => prisma.account.update({ where: { handle }, data: patch }),
});

export type AccountRepository = ReturnType<typeof createAccountRepository>;

/**
 * used += 1 on the account `$account` if its window is `$periodStart` (an ISO instant) and used is
 * below `$limit`, returning the new used: the one statement that reserves quota (the quota store
 * runs it alone; the render cache runs it with its lookup). `extraCondition` narrows it further.
 */
export const reserveQuotaStatement = (account: string, periodStart: string, limit: string, extraCondition = '') =>
  `UPDATE "Account" SET "quotaUsed" = "quotaUsed" + 1, "updatedAt" = (now() AT TIME ZONE 'UTC')
   WHERE "id" = ${account} AND "quotaPeriodStart" = (${periodStart}::timestamptz AT TIME ZONE 'UTC') AND "quotaUsed" < ${limit}${extraCondition}
   RETURNING "quotaUsed"`;

/** The quota counter as single conditional statements (see core's quota service). */
export const createQuotaStore = (prisma: PrismaClient, sql: SqlClient): QuotaStore => ({
  async rollWindow(accountId, from, to) {
    await prisma.account.updateMany({ where: { id: accountId, quotaPeriodStart: from }, data: { quotaPeriodStart: to, quotaUsed: 0 } });
  },
  // On every fresh generation: plain SQL (see sql.ts).
  async reserve(accountId, periodStart, limit) {
    const rows = await sql.query<{ quotaUsed: number }>(reserveQuotaStatement('$1', '$2', '$3'), [accountId, periodStart.toISOString(), limit]);
    return rows.length > 0 ? rows[0].quotaUsed : null;
  },
  async refund(accountId, periodStart) {
    await prisma.$executeRaw`
      UPDATE "Account" SET "quotaUsed" = "quotaUsed" - 1, "updatedAt" = now()
      WHERE "id" = ${accountId}::uuid AND "quotaPeriodStart" = ${periodStart} AND "quotaUsed" > 0`;
  },
  read: (accountId) => prisma.account.findUnique({ where: { id: accountId }, select: { quotaUsed: true, quotaPeriodStart: true } }),
});
