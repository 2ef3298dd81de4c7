import { hashSecretToken, newSecretToken } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';

/** Dashboard sign-in sessions. The browser holds the token; the table holds its hash. */
export const createDashboardSessionRepository = (prisma: PrismaClient) => ({
  /**
   * Opens a session; returns the cookie token (in clear, this once) and the CSRF token. Also drops
   * the account's expired sessions, so the table holds about one row per signed-in browser.
   */
  async create(accountId: string, expiresAt: Date, now = new Date()) {
    const token = newSecretToken();
    const csrfToken = newSecretToken();
    const [, row] = await prisma.$transaction([
      prisma.dashboardSession.deleteMany({ where: { accountId, expiresAt: { lte: now } } }),
      prisma.dashboardSession.create({ data: { accountId, tokenHash: hashSecretToken(token), csrfToken, expiresAt } }),
    ]);
    return { id: row.id, token, csrfToken, expiresAt: row.expiresAt };
  },

  /** The session for a cookie token with its account, or null. Expiry is the caller's rule. */
  findByToken: (token: string) =>
    prisma.dashboardSession.findUnique({ where: { tokenHash: hashSecretToken(token) }, include: { account: { omit: { webhookSecret: true } } } }),

  touch: (id: string, lastSeenAt: Date, expiresAt: Date) => prisma.dashboardSession.updateMany({ where: { id }, data: { lastSeenAt, expiresAt } }),

  async remove(id: string): Promise<void> {
    await prisma.dashboardSession.deleteMany({ where: { id } });
  },

  /** Drops every expired session (housekeeping: accounts that never sign in again). */
  async removeExpired(now: Date): Promise<number> {
    return (await prisma.dashboardSession.deleteMany({ where: { expiresAt: { lte: now } } })).count;
  },

  /** Signs an account out everywhere (suspended or banned). */
  async removeForAccount(accountId: string): Promise<void> {
    await prisma.dashboardSession.deleteMany({ where: { accountId } });
  },
});

export type DashboardSessionRepository = ReturnType<typeof createDashboardSessionRepository>;
export type DashboardSessionWithAccount = NonNullable<Awaited<ReturnType<DashboardSessionRepository['findByToken']>>>;
