import { signWebhook, type GenerationJobHandler, type WebhookDeliveryStore, type WebhookSender } from '@promptpix/core';
import type { Logger } from '@promptpix/runtime';

export interface WebhookDeliveryProcessorDeps {
  deliveries: Pick<WebhookDeliveryStore, 'get' | 'recordAttempt' | 'markFailed' | 'secretFor'>;
  sender: WebhookSender;
  logger: Logger;
  now: () => Date;
}

const isSuccess = (statusCode: number) => statusCode >= 200 && statusCode < 300;

/**
 * The `webhooks` job (README, "Webhooks"): one attempt at one delivery, its payload's jobId the
 * delivery id. Each attempt is signed afresh (a new timestamp) under the same webhook-id and
 * written to the delivery log. A 2xx delivers; another status, a timeout or a network error
 * throws so the queue retries with backoff; an address the SSRF guard refuses ends the delivery
 * `blocked` at once.
 */
export function createWebhookDeliveryProcessor(d: WebhookDeliveryProcessorDeps) {
  const handle: GenerationJobHandler = async ({ jobId: id }, attempt) => {
    const delivery = await d.deliveries.get(id);
    // Gone, or settled by an earlier run of the same id.
    if (delivery?.status !== 'pending' || delivery.body === null) return;
    const secret = await d.deliveries.secretFor(delivery.accountId);
    const outcome = await d.sender.send(delivery.url, { ...signWebhook(secret, id, d.now(), delivery.body) }, delivery.body);
    const at = d.now();
    const log = { deliveryId: id, jobId: delivery.jobId, event: delivery.event, attempt: attempt.attempt };

    if (outcome.kind === 'blocked') {
      await d.deliveries.recordAttempt(id, { status: 'blocked', error: outcome.reason, at });
      d.logger.warn('webhook blocked', { ...log, reason: outcome.reason });
      return;
    }
    if (outcome.kind === 'response' && isSuccess(outcome.statusCode)) {
      await d.deliveries.recordAttempt(id, { status: 'delivered', statusCode: outcome.statusCode, at });
      d.logger.info('webhook delivered', { ...log, statusCode: outcome.statusCode });
      return;
    }
    const error = outcome.kind === 'response' ? `HTTP ${outcome.statusCode}` : outcome.message;
    await d.deliveries.recordAttempt(id, { status: 'pending', statusCode: outcome.kind === 'response' ? outcome.statusCode : undefined, error, at });
    d.logger.info('webhook attempt failed', { ...log, error });
    throw new Error(`Webhook delivery failed: ${error}`);
  };

  /** No attempt left: the delivery ends failed (the log keeps the last attempt's error). */
  async function onFinalFailure({ jobId: id }: { jobId: string }, error: Error): Promise<void> {
    d.logger.warn('webhook failed for good', { deliveryId: id, error: error.message });
    await d.deliveries.markFailed(id, error.message.replace(/^Webhook delivery failed: /, ''));
  }

  return { handle, onFinalFailure };
}
