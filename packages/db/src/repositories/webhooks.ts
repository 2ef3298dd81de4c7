import { newWebhookSecret, type WebhookDelivery, type WebhookDeliveryStore } from '@promptpix/core';
import type { Prisma, PrismaClient } from '../generated/client';

const DAY_MS = 86_400_000;

/**
 * The webhook delivery log and the accounts' webhook secrets (README, "Webhooks"). Finished
 * deliveries (delivered, failed, blocked) older than `logDays` are dropped when the account's
 * next delivery is claimed, so the log keeps a window instead of growing for ever.
 */
export const createWebhookRepository = (prisma: PrismaClient, { logDays = 30, now = () => new Date() }: { logDays?: number; now?: () => Date } = {}) => {
  const outOfWindow = (): Prisma.WebhookDeliveryWhereInput => ({
    status: { in: ['delivered', 'failed', 'blocked'] },
    createdAt: { lt: new Date(now().getTime() - logDays * DAY_MS) },
  });

  async function secretFor(accountId: string): Promise<string> {
    // Made on first need; the condition keeps the first of two concurrent makers.
    await prisma.account.updateMany({ where: { id: accountId, webhookSecret: null }, data: { webhookSecret: newWebhookSecret() } });
    const account = await prisma.account.findUniqueOrThrow({ where: { id: accountId }, select: { webhookSecret: true } });
    return account.webhookSecret!;
  }

  const store: WebhookDeliveryStore = {
    async subscribe({ id, accountId, jobId, url }) {
      await prisma.webhookDelivery.createMany({ data: [{ id, accountId, jobId, url, status: 'waiting' }], skipDuplicates: true });
    },

    async claim({ jobId, accountId, event, body, creator }) {
      const created = creator
        ? await prisma.webhookDelivery.createManyAndReturn({
            data: [{ id: creator.id, accountId, jobId, url: creator.url, event, body, status: 'pending' }],
            skipDuplicates: true,
            select: { id: true },
          })
        : [];
      // One statement: of two concurrent claims, each waiting row goes to exactly one.
      const subscribed = await prisma.webhookDelivery.updateManyAndReturn({
        where: { jobId, status: 'waiting' },
        data: { status: 'pending', event, body },
        select: { id: true },
      });
      const claimed = [...created, ...subscribed].map((row) => row.id);
      if (claimed.length > 0) {
        await prisma.webhookDelivery.deleteMany({ where: { accountId, ...outOfWindow() } });
      }
      return claimed;
    },

    get: (id) => prisma.webhookDelivery.findUnique({ where: { id } }),

    async recordAttempt(id, { status, statusCode, error, at }) {
      await prisma.webhookDelivery.updateMany({
        where: { id, status: 'pending' },
        data: {
          status,
          attempts: { increment: 1 },
          lastStatusCode: statusCode ?? null,
          lastError: error?.slice(0, 500) ?? null,
          lastAttemptAt: at,
          ...(status === 'delivered' && { deliveredAt: at }),
        },
      });
    },

    async markFailed(id, error) {
      await prisma.webhookDelivery.updateMany({ where: { id, status: 'pending' }, data: { status: 'failed', lastError: error.slice(0, 500) } });
    },

    async pendingIds(since, limit) {
      const rows = await prisma.webhookDelivery.findMany({
        where: { status: 'pending', createdAt: { gte: since } },
        orderBy: { createdAt: 'asc' },
        take: limit,
        select: { id: true },
      });
      return rows.map((row) => row.id);
    },

    secretFor,
  };

  return {
    ...store,

    /** Replaces the account's secret; deliveries still being retried are signed with the new one. */
    async rotateSecret(accountId: string): Promise<string> {
      const secret = newWebhookSecret();
      await prisma.account.update({ where: { id: accountId }, data: { webhookSecret: secret } });
      return secret;
    },

    /** Drops every account's finished deliveries older than the window (housekeeping). */
    async pruneLog(): Promise<number> {
      return (await prisma.webhookDelivery.deleteMany({ where: outOfWindow() })).count;
    },

    /** The account's deliveries, newest first (the operator's delivery log). */
    list: (accountId: string, limit: number): Promise<WebhookDelivery[]> =>
      prisma.webhookDelivery.findMany({ where: { accountId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit }),
  };
};

export type WebhookRepository = ReturnType<typeof createWebhookRepository>;
