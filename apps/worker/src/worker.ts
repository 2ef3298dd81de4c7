import sharp from 'sharp';
import type { QueueConsumer } from '@promptpix/core';
import type { Config, Infrastructure, Logger } from '@promptpix/runtime';
import { instrumentGenerationJobs, instrumentModel } from '@promptpix/runtime/src/metrics';
import { createCharacterReferences } from './processors/character-references';
import { createGenerationProcessor } from './processors/generation';

/** Starts consuming generation jobs with the configured concurrency. */
export function startGenerationWorker(infra: Infrastructure, config: Config, logger: Logger): QueueConsumer {
  // Long-running process: don't let libvips keep decoded images around between jobs.
  sharp.cache(false);
  const model = { ...instrumentModel(infra.model, infra.metrics), prepareReference: infra.model.prepareReference?.bind(infra.model) };
  const characters = createCharacterReferences({ characters: infra.characters, storage: infra.storage, model, singleFlight: infra.singleFlight, logger });
  const processor = instrumentGenerationJobs(createGenerationProcessor({
    characterFor: (id, style, seed) => characters.forScene(id, style, seed),
    jobStore: infra.jobStore,
    model,
    storage: infra.storage,
    images: infra.images,
    quota: infra.quota,
    events: infra.events,
    singleFlight: infra.singleFlight,
    invalidation: infra.invalidation,
    logger,
    now: () => new Date(),
  }), infra.metrics, infra.model.name);
  logger.info('worker consuming generation jobs', { concurrency: config.worker.concurrency, model: infra.model.name });
  return infra.queue.consume(processor.handle, { concurrency: config.worker.concurrency, onFinalFailure: processor.onFinalFailure });
}
