import { Router } from 'express';
import type { WebhookDelivery } from '@promptpix/core';
import type { GatewayDeps } from '../deps';
import { type AdminWebhookDeliveries, type AdminWebhookDelivery, type AdminWebhookSecret, webhookDeliveriesQuerySchema } from '@promptpix/contracts';
import { parseOrThrow } from '../http/validate';

type Deps = Pick<GatewayDeps, 'logger' | 'webhookStore'>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

const deliveryView = (d: WebhookDelivery): AdminWebhookDelivery => ({
  id: d.id,
  jobId: d.jobId,
  event: d.event,
  url: d.url,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  createdAt: d.createdAt.toISOString(),
  lastAttemptAt: iso(d.lastAttemptAt),
  deliveredAt: iso(d.deliveredAt),
});

/**
 * Operator API for webhooks (README, "Webhooks"): the account's signing secret (made on first
 * read, rotated on demand) and its delivery log. Mounted behind the admin token by ./routes.ts.
 * The secret is never logged.
 */
export function webhookAdminRoutes(deps: Deps, accountByHandle: (handle: string) => Promise<{ id: string; handle: string }>) {
  const router = Router();

  router.get('/admin/api/v1/accounts/:handle/webhook-secret', async (req, res) => {
    const account = await accountByHandle(req.params.handle);
    res.set('Cache-Control', 'no-store').json({ secret: await deps.webhookStore.secretFor(account.id) } satisfies AdminWebhookSecret);
  });

  router.post('/admin/api/v1/accounts/:handle/webhook-secret/rotate', async (req, res) => {
    const account = await accountByHandle(req.params.handle);
    const secret = await deps.webhookStore.rotateSecret(account.id);
    deps.logger.info('webhook secret rotated', { handle: account.handle });
    res.set('Cache-Control', 'no-store').json({ secret } satisfies AdminWebhookSecret);
  });

  router.get('/admin/api/v1/accounts/:handle/webhooks/deliveries', async (req, res) => {
    const { limit } = parseOrThrow(webhookDeliveriesQuerySchema, req.query);
    const account = await accountByHandle(req.params.handle);
    res.json({ deliveries: (await deps.webhookStore.list(account.id, limit)).map(deliveryView) } satisfies AdminWebhookDeliveries);
  });

  return router;
}
