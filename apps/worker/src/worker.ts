import sharp from 'sharp';
import { createBackendBulkhead, createJobCancellation, type QueueConsumer } from '@promptpix/core';
import type { Config, Infrastructure, Logger } from '@promptpix/runtime';
import { instrumentGenerationJobs, instrumentModel, reportCallsInFlight } from '@promptpix/runtime/metrics';
import { housekeepingTasks, startHousekeeping, startLibraryIndexing } from './housekeeping';
import { createCharacterReferences } from './processors/character-references';
import { createGenerationProcessor } from './processors/generation';
import { createWebhookDeliveryProcessor } from './processors/webhook-delivery';
import { createWebhookSender } from './webhooks/http-sender';
import { logRetriedAttempts } from './attempt-log';

/** Starts consuming generation jobs with the configured concurrency. */
export function startGenerationWorker(infra: Infrastructure, config: Config, logger: Logger): QueueConsumer {
  // Long-running process: don't let libvips keep decoded images around between jobs.
  sharp.cache(false);
  const model = {
    ...instrumentModel(infra.model, infra.metrics),
    prepareReference: infra.model.prepareReference?.bind(infra.model),
    upscale: infra.model.upscale?.bind(infra.model),
    transparentBackground: infra.model.transparentBackground,
    edits: infra.model.edits,
  };
  const characters = createCharacterReferences({ characters: infra.characters, storage: infra.storage, model, singleFlight: infra.singleFlight, logger });
  // Each backend's calls in flight: this process's, and (leases in Redis) every worker's together.
  let lastStoreError = 0;
  const bulkhead = createBackendBulkhead({
    limits: (id) => infra.models.get(id)?.limits ?? { maxInFlightPerWorker: config.worker.concurrency, maxInFlight: null },
    store: infra.permits,
    now: Date.now,
    onStoreError: (error) => {
      if (Date.now() - lastStoreError < 1000) return;
      lastStoreError = Date.now();
      logger.warn("bulkhead permit store failed; calls go on under this worker's own limits", { error });
    },
  });
  reportCallsInFlight(infra.metrics, () => bulkhead.inFlight(), infra.models.ids);
  const generation = createGenerationProcessor({
    characterFor: (id, style, seed) => characters.forScene(id, style, seed),
    jobStore: infra.jobStore,
    accounts: infra.accounts,
    model,
    models: infra.models,
    breaker: infra.breaker,
    bulkhead,
    onSlowCall: (id) => infra.metrics.modelSlowCalls.inc({ model: id }),
    onDeferred: (id) => infra.metrics.modelDeferrals.inc({ model: id }),
    failedJobs: infra.failedJobs,
    storage: infra.storage,
    images: infra.images,
    permalinks: infra.permalinks,
    quota: infra.quota,
    events: infra.events,
    singleFlight: infra.singleFlight,
    activeJobs: infra.activeJobs,
    invalidation: infra.invalidation,
    webhooks: infra.webhookNotifier,
    cancellation: createJobCancellation({ ...infra, now: () => new Date() }),
    logger,
    now: () => new Date(),
  });
  infra.invalidation.subscribe((message) => {
    if (message.kind === 'job-cancelled') generation.abort(message.jobId);
  });
  const processor = instrumentGenerationJobs(generation, infra.metrics, infra.model.name);
  logger.info('worker consuming generation jobs', {
    concurrency: config.worker.concurrency,
    models: infra.models.ids,
    defaultModel: infra.models.defaultId,
    limits: Object.fromEntries(infra.models.ids.map((id) => [id, infra.models.get(id)!.limits])),
  });
  const consumer = infra.queue.consume(logRetriedAttempts(processor.handle, logger), {
    concurrency: config.worker.concurrency,
    // A job deferred for a full backend holds its account's turn for that model (JobAttempt.started).
    holdTurnUntilStarted: true,
    onFinalFailure: processor.onFinalFailure,
    shutdownGraceMs: config.worker.shutdownGraceMs,
    onHandedBack: ({ jobId }) =>
      logger.warn('generation handed back to the queue: shutdown grace period over', { jobId, graceMs: config.worker.shutdownGraceMs }),
  });
  return {
    async close() {
      await consumer.close();
      bulkhead.close();
    },
  };
}

export const WEBHOOK_USER_AGENT = 'PromptPix-Webhooks/1.0';

/** Starts consuming webhook deliveries; first re-queues those a restart may have dropped. */
export function startWebhookWorker(infra: Infrastructure, config: Config, logger: Logger): QueueConsumer {
  const { timeoutMs, allowPrivateAddresses, concurrency } = config.webhooks;
  const processor = createWebhookDeliveryProcessor({
    deliveries: infra.webhookStore,
    sender: createWebhookSender({ timeoutMs, allowPrivateAddresses, userAgent: WEBHOOK_USER_AGENT }),
    logger,
    now: () => new Date(),
  });
  if (allowPrivateAddresses) logger.warn('webhooks may reach private, loopback and link-local addresses (WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true)');
  infra.webhookNotifier.resumePending().then(
    (count) => count > 0 && logger.info('webhook deliveries re-queued', { count }),
    (error: unknown) => logger.warn('could not re-queue pending webhook deliveries', { error }),
  );
  return infra.webhookQueue.consume(processor.handle, { concurrency, onFinalFailure: processor.onFinalFailure });
}

/**
 * Everything a worker process runs: generation jobs, webhook deliveries, hourly housekeeping and
 * the library's meaning vectors.
 * Closing stops them in that order.
 */
export function startWorkers(infra: Infrastructure, config: Config, logger: Logger): QueueConsumer {
  const generation = startGenerationWorker(infra, config, logger);
  const webhooks = startWebhookWorker(infra, config, logger);
  const housekeeping = startHousekeeping({ tasks: housekeepingTasks(infra), logger });
  const indexing = infra.libraryIndexer ? startLibraryIndexing(infra.libraryIndexer, logger) : null;
  return {
    async close() {
      // Generation first: a job finishing while it drains still queues its webhooks.
      await generation.close();
      await webhooks.close();
      await housekeeping.close();
      await indexing?.close();
    },
  };
}
