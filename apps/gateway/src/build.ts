import { createGenerationService, newId } from '@promptpix/core';
import type { Config, Infrastructure, Logger } from '@promptpix/runtime';
import type { GatewayDeps } from './deps';

export const SERVICE_NAME = 'promptpix';

export function buildGatewayDeps(infra: Infrastructure, config: Config, logger: Logger, adminToken: string | undefined): GatewayDeps {
  return {
    serviceName: SERVICE_NAME,
    logger,
    accounts: infra.accounts,
    apiKeys: infra.apiKeys,
    images: infra.images,
    jobStore: infra.jobStore,
    queue: infra.queue,
    storage: infra.storage,
    quota: infra.quota,
    events: infra.events,
    rateLimiter: infra.rateLimiter,
    singleFlight: infra.singleFlight,
    now: () => new Date(),
    generations: createGenerationService({
      jobStore: infra.jobStore,
      queue: infra.queue,
      quota: infra.quota,
      now: () => new Date(),
      newId,
      onError: (message, error) => logger.error(message, { error }),
    }),
    adminToken,
    localFilesRoot: config.storage.kind === 'local' ? config.storage.root : undefined,
  };
}
