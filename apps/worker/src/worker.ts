import sharp from 'sharp';
import type { QueueConsumer } from '@promptpix/core';
import type { Config, Infrastructure, Logger } from '@promptpix/runtime';
import { createGenerationProcessor } from './processors/generation';

/** Starts consuming generation jobs with the configured concurrency. */
export function startGenerationWorker(infra: Infrastructure, config: Config, logger: Logger): QueueConsumer {
  // Long-running process: don't let libvips keep decoded images around between jobs.
  sharp.cache(false);
  const processor = createGenerationProcessor({
    jobStore: infra.jobStore,
    model: infra.model,
    storage: infra.storage,
    images: infra.images,
    quota: infra.quota,
    events: infra.events,
    singleFlight: infra.singleFlight,
    logger,
    now: () => new Date(),
  });
  logger.info('worker consuming generation jobs', { concurrency: config.worker.concurrency, model: infra.model.name });
  return infra.queue.consume(processor.handle, { concurrency: config.worker.concurrency, onFinalFailure: processor.onFinalFailure });
}
