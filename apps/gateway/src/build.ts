import { createGenerationService, createInstantService, newId } from '@promptpix/core';
import type { Config, Infrastructure, Logger } from '@promptpix/runtime';
import type { GatewayDeps } from './deps';

export const SERVICE_NAME = 'promptpix';

export function buildGatewayDeps(infra: Infrastructure, config: Config, logger: Logger, adminToken: string | undefined): GatewayDeps {
  return {
    serviceName: SERVICE_NAME,
    publicBaseUrl: config.publicBaseUrl,
    logger,
    accounts: infra.accounts,
    apiKeys: infra.apiKeys,
    images: infra.images,
    library: infra.library,
    imageFlags: infra.imageFlags,
    permalinks: infra.permalinks,
    styles: infra.styles,
    model: infra.model,
    libraryDelaySeconds: config.libraryDelaySeconds,
    jobStore: infra.jobStore,
    queue: infra.queue,
    storage: infra.storage,
    quota: infra.quota,
    events: infra.events,
    rateLimiter: infra.rateLimiter,
    singleFlight: infra.singleFlight,
    now: () => new Date(),
    renderWaitMs: config.renderWaitMs,
    generations: createGenerationService({
      jobStore: infra.jobStore,
      queue: infra.queue,
      quota: infra.quota,
      cache: infra.images,
      singleFlight: infra.singleFlight,
      storage: infra.storage,
      events: infra.events,
      now: () => new Date(),
      newId,
      onError: (message, error) => logger.error(message, { error }),
    }),
    instant: createInstantService({
      library: infra.library,
      saveCopy: async (copy) => {
        await infra.images.saveLibraryCopy(copy);
      },
      storage: infra.storage,
      now: () => new Date(),
      libraryDelaySeconds: config.libraryDelaySeconds,
      minScore: config.instantMinScore,
    }),
    adminToken,
    localFilesRoot: config.storage.kind === 'local' ? config.storage.root : undefined,
  };
}
