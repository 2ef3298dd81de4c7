import type { EventRecorder, GenerationQueue, GenerationService, JobStore, QuotaService, RateLimiter, SingleFlight, Storage } from '@promptpix/core';
import type { AccountRepository, ApiKeyRepository, ImageRepository } from '@promptpix/db';
import type { Logger } from '@promptpix/runtime';

/** Everything the gateway talks to; built by a composition root (main.ts, the embedded server, tests). */
export interface GatewayDeps {
  serviceName: string;
  logger: Logger;
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  images: ImageRepository;
  jobStore: JobStore;
  queue: GenerationQueue;
  storage: Storage;
  quota: QuotaService;
  generations: GenerationService;
  events: EventRecorder;
  rateLimiter: RateLimiter;
  singleFlight: SingleFlight;
  now: () => Date;
  /** Operator API token; the admin API refuses every call when unset. */
  adminToken?: string;
  /** Directory served under /files when images live on local disk. */
  localFilesRoot?: string;
}
