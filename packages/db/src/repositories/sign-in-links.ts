import { hashSecretToken, newSecretToken, signInLinkState } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';

/** Expired links are kept a day so a late click reads "expired" rather than "invalid". */
const KEEP_EXPIRED_MS = 86_400_000;
const staleBefore = (now: Date) => ({ lt: new Date(now.getTime() - KEEP_EXPIRED_MS) });

export type SignInLinkOutcome = { outcome: 'ok'; accountId: string } | { outcome: 'expired' | 'used' | 'unknown' };

/** One-time dashboard sign-in links. The e-mail holds the token; the table holds its hash. */
export const createSignInLinkRepository = (prisma: PrismaClient) => ({
  /**
   * Makes a link for an account; returns the token in clear, this once. Also drops the account's
   * links that expired over a day ago: the table holds only links that can still say why they fail.
   */
  async create(accountId: string, expiresAt: Date, now = new Date()): Promise<{ id: string; token: string; expiresAt: Date }> {
    const token = newSecretToken();
    const [, row] = await prisma.$transaction([
      prisma.signInLink.deleteMany({ where: { accountId, expiresAt: staleBefore(now) } }),
      prisma.signInLink.create({ data: { accountId, tokenHash: hashSecretToken(token), expiresAt } }),
    ]);
    return { id: row.id, token, expiresAt: row.expiresAt };
  },

  /** Drops every link that expired over a day ago (housekeeping: accounts that never sign in again). */
  async removeStale(now: Date): Promise<number> {
    return (await prisma.signInLink.deleteMany({ where: { expiresAt: staleBefore(now) } })).count;
  },

  /**
   * Uses a link. The mark is one conditional UPDATE (unused and unexpired), so of two concurrent
   * confirms of one link exactly one gets `ok`; a failed one reads the row to say why.
   */
  async consume(token: string, now: Date): Promise<SignInLinkOutcome> {
    const tokenHash = hashSecretToken(token);
    const marked = await prisma.signInLink.updateMany({ where: { tokenHash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    const link = await prisma.signInLink.findUnique({ where: { tokenHash }, select: { accountId: true, expiresAt: true, usedAt: true } });
    if (!link) return { outcome: 'unknown' };
    if (marked.count === 1) return { outcome: 'ok', accountId: link.accountId };
    const state = signInLinkState(link, now);
    // Unused but not marked can only mean it expired between the two statements.
    return { outcome: state === 'ok' ? 'expired' : state };
  },
});

export type SignInLinkRepository = ReturnType<typeof createSignInLinkRepository>;
