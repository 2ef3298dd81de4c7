/**
 * Builds the adapters a process needs from its config: embedded (PGlite, in-process queue and
 * job store, local disk) or production (PostgreSQL, BullMQ + Redis, S3). The only place that
 * chooses between them.
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import {
  breakerPolicyFor,
  createBackendBreaker,
  createEventRecorder,
  type PermitStore,
  createMemoryBreakerStore,
  type BackendBreaker,
  createQuotaService,
  createWebhookNotifier,
  type WebhookNotifier,
  type EventRecorder,
  type GenerationQueue,
  type ImageModel,
  type JobStore,
  type QuotaService,
  type InvalidationBus,
  type RateLimiter,
  type SingleFlight,
  type ActiveJobs,
  type BudgetCounter,
  type JobAdmission,
  type IdempotencyStore,
  type Storage,
  type Mailer,
  type PromptEmbedder,
  type LibraryIndexer,
  createLibraryIndexer,
  createUploadService,
  createUpscaleService,
  type UploadService,
  type UpscaleService,
} from '@promptpix/core';
import {
  createLocalInvalidationBus,
  createComposedJobAdmission,
  createMemoryActiveJobs,
  createMemoryBudgetCounter,
  createMemoryIdempotencyStore,
  createMemoryRateLimiter,
  createMemorySingleFlight,
  createRedisActiveJobs,
  createRedisBudgetCounter,
  createRedisIdempotencyStore,
  createRedisJobAdmission,
  createRedisInvalidationBus,
  createRedisRateLimiter,
  createRedisSingleFlight,
  createRedisBreakerStore,
  createMemoryPermitStore,
  createRedisPermitStore,
} from '@promptpix/coordination';
import {
  createAccountRepository,
  createCharacterRepository,
  createApiKeyRepository,
  createEventRepository,
  createImageFlagRepository,
  createImageRepository,
  createLibraryRepository,
  createPermalinkRepository,
  createStyleRepository,
  createQuotaStore,
  createWebhookRepository,
  createDashboardSessionRepository,
  createFailedJobRepository,
  type FailedJobRepository,
  createSignInLinkRepository,
  createUploadRepository,
  migrateDatabase,
  openDatabase,
  type Database,
} from '@promptpix/db';
import { createModelRegistry, createPromptEmbedder, type ModelRegistry, sanitizeImageInput } from '@promptpix/models';
import { createInProcessGenerationQueue, createMemoryJobStore, createRedisJobStore } from '@promptpix/queue';
import { createLocalDiskStorage } from '@promptpix/storage';
import { localModelConfigError, type Config } from './config/config';
import type { Logger } from './observability/logger';
import { createMailer } from './mail/mailer';
import { countCacheHits, createMetrics, type Metrics } from './observability/metrics';

export interface Infrastructure {
  db: Database;
  accounts: ReturnType<typeof createAccountRepository>;
  apiKeys: ReturnType<typeof createApiKeyRepository>;
  images: ReturnType<typeof createImageRepository>;
  library: ReturnType<typeof createLibraryRepository>;
  imageFlags: ReturnType<typeof createImageFlagRepository>;
  permalinks: ReturnType<typeof createPermalinkRepository>;
  styles: ReturnType<typeof createStyleRepository>;
  characters: ReturnType<typeof createCharacterRepository>;
  jobStore: JobStore;
  queue: GenerationQueue;
  storage: Storage;
  /** The default model (style previews, library seeding, character references). */
  model: ImageModel;
  /** Every model callers can name, by id (docs/operating/models.md). */
  models: ModelRegistry;
  /** The per-backend circuit breakers, shared through Redis; null when MODEL_BREAKER_FAILURES=0. */
  breaker: BackendBreaker | null;
  /** Leases on calls in flight to each backend, shared through Redis (the overall half of the workers' bulkheads). */
  permits: PermitStore;
  /** Jobs that failed for good, kept FAILED_JOB_DAYS (operator API, dashboard). */
  failedJobs: FailedJobRepository;
  /** Images sent in to edit: uploads (sanitised, budgeted, expiring) and the inputs an edit's job carries. */
  uploads: UploadService;
  /** Larger copies of stored images as jobs (POST /api/v1/image/:id/upscale). */
  upscales: UpscaleService;
  /** Reads prompts' meaning for instant mode; null when INSTANT_EMBEDDINGS=off. */
  embedder: PromptEmbedder | null;
  /** Gives library images their meaning vectors (worker loop, library seed); null without an embedder. */
  libraryIndexer: LibraryIndexer | null;
  quota: QuotaService;
  events: EventRecorder;
  eventStore: ReturnType<typeof createEventRepository>;
  rateLimiter: RateLimiter;
  singleFlight: SingleFlight;
  /** Idempotency keys of generate. */
  idempotency: IdempotencyStore;
  /** Jobs in progress per key (gateway admits, worker releases). */
  activeJobs: ActiveJobs;
  /** Fresh generations publishable keys started, per client and key, hour and day. */
  budget: BudgetCounter;
  /** The last step of starting a job: cap slot and job record (one Redis script in production). */
  admission: JobAdmission;
  /** Credential changes announced to every gateway process. */
  invalidation: InvalidationBus;
  /** Webhooks (README, "Webhooks"): the delivery log and secrets, the delivery queue, and who is told when a job finishes. */
  webhookStore: ReturnType<typeof createWebhookRepository>;
  /** Signed-in dashboard browsers. */
  dashboardSessions: ReturnType<typeof createDashboardSessionRepository>;
  /** One-time dashboard sign-in links (stored by hash). */
  signInLinks: ReturnType<typeof createSignInLinkRepository>;
  /** Outgoing e-mail: SMTP when SMTP_URL is set, else .eml files in DATA_DIR/outbox. */
  mailer: Mailer;
  webhookQueue: GenerationQueue;
  webhookNotifier: WebhookNotifier;
  /** This instance's Prometheus registry (gateway and worker series; queue depth read on scrape). */
  metrics: Metrics;
  /** Releases everything, in dependency order. */
  close(): Promise<void>;
}

export interface InfrastructureOptions {
  /** Apply pending migrations before use (embedded start). */
  migrate: boolean;
  now?: () => Date;
  /**
   * Redis commands issued while the connection is down wait for the next reconnection attempt (a
   * worker: a job retried just after a Redis blip completes), instead of failing at once (a
   * gateway: a fast 503).
   */
  redisWaitsForReconnect?: boolean;
}

export async function createStorage(config: Config['storage']): Promise<Storage> {
  if (config.kind === 'local') return createLocalDiskStorage({ root: config.root, publicBaseUrl: config.publicBaseUrl });
  // Loaded only when used: the AWS SDK is about 20 MB of resident memory a local-disk process never needs.
  const { createS3Storage } = await import('@promptpix/storage/s3');
  return createS3Storage(config);
}

/** An outage emits an error per reconnection attempt: at most one log line a second of them. */
function onceASecond(log: (error: Error) => void): (error: Error) => void {
  let last = 0;
  return (error) => {
    if (Date.now() - last < 1000) return;
    last = Date.now();
    log(error);
  };
}

async function connectRedis(url: string, waitsForReconnect: boolean, onError: (error: Error) => void): Promise<Redis> {
  // By default, fail fast while Redis is down instead of queueing commands (requests get a 503).
  // A worker queues them until the next reconnection attempt instead: failing at once spent a
  // job's remaining attempts in the moments after Redis came back, while this client was still
  // waiting out its reconnect backoff.
  // Auto-pipelining sends the commands that concurrent requests issue in one tick as one write:
  // under load most of a hot request's Redis cost was its own socket write.
  const redis = new Redis(url, {
    lazyConnect: true,
    // Either way a command still fails after two reconnection attempts fail (ioredis leaves a
    // command in flight at the drop unsettled forever without that limit), so nothing hangs.
    enableOfflineQueue: waitsForReconnect,
    maxRetriesPerRequest: 1,
    connectTimeout: 5000,
    enableAutoPipelining: true,
  });
  // Without a listener ioredis prints each reconnection failure of an outage to stderr, unstructured.
  redis.on('error', onError);
  await redis.connect();
  return redis;
}

export async function openInfrastructure(config: Config, logger: Logger, options: InfrastructureOptions): Promise<Infrastructure> {
  const now = options.now ?? (() => new Date());
  if (options.migrate) {
    const { applied } = await migrateDatabase(config.database, { log: (line) => logger.debug(line) });
    if (applied.length > 0) logger.info('database migrated', { applied });
  }
  const db = await openDatabase(config.database, {
    onConnectionLost: (error) => logger.warn('database connection lost; the next query reconnects', { error: error.message }),
  });
  const redis = config.redis
    ? await connectRedis(
        config.redis.url,
        options.redisWaitsForReconnect ?? false,
        onceASecond((error) => logger.warn('redis connection error', { error: error.message })),
      )
    : null;
  const prefix = config.redis ? `${config.redis.prefix}:` : '';

  const jobStore = redis ? createRedisJobStore({ redis, prefix }) : createMemoryJobStore({});
  // Loaded only with Redis: the embedded process's in-process queue never needs BullMQ.
  const bull = config.redis ? await import('@promptpix/queue') : null;
  const queue =
    config.redis && bull
      ? bull.createBullGenerationQueue({
          redisUrl: config.redis.url,
          prefix: config.redis.prefix,
          attempts: config.worker.attempts,
          backoffMs: config.worker.backoffMs,
          // A crashed worker's job is taken over once its lock lapses and the stall check runs.
          lockDurationMs: config.worker.lockMs,
          stalledIntervalMs: Math.max(250, Math.floor(config.worker.lockMs / 2)),
          onError: onceASecond((error) => logger.warn('queue connection error', { error: error.message })),
        })
      : createInProcessGenerationQueue({ attempts: config.worker.attempts, backoffMs: config.worker.backoffMs });
  // Webhook deliveries: the same queue port on a queue of its own; retries up to about a day.
  const webhookQueue =
    config.redis && bull
      ? bull.createBullGenerationQueue({
          redisUrl: config.redis.url,
          prefix: config.redis.prefix,
          queueName: 'webhooks',
          // Deliveries are short and bounded per job (WEBHOOK_TIMEOUT_MS): first come, first served.
          fair: false,
          attempts: config.webhooks.attempts,
          backoffMs: config.webhooks.backoffMs,
          onError: onceASecond((error) => logger.warn('webhook queue connection error', { error: error.message })),
        })
      : createInProcessGenerationQueue({ attempts: config.webhooks.attempts, backoffMs: config.webhooks.backoffMs });
  const webhookStore = createWebhookRepository(db.prisma, { logDays: config.webhooks.logDays, now });
  const webhookNotifier = createWebhookNotifier({
    jobStore,
    deliveries: webhookStore,
    queue: webhookQueue,
    now,
    onError: (message, error) => logger.error(message, { error }),
  });
  const eventRepository = createEventRepository(db.prisma, db.sql);
  const invalidation = redis
    ? createRedisInvalidationBus({
        publisher: redis,
        // Subscriber mode needs a connection of its own; it resubscribes by itself after a reconnect.
        subscriber: redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, enableAutoPipelining: false }).on(
          'error',
          onceASecond((error) => logger.warn('invalidation bus connection error', { error: error.message })),
        ),
        prefix,
        onError: (error) => logger.warn('invalidation bus error', { error }),
      })
    : createLocalInvalidationBus();
  const models = createModelRegistry(config.models.entries, config.models.defaultId, undefined, { concurrency: config.worker.concurrency });
  const breakerPolicy = config.models.breaker;
  // Each backend's rules fitted to its limits: how many calls it may hold at once, how long one may take.
  const policyOf = (backend: string) => {
    const limits = models.get(backend)?.limits;
    return limits ? breakerPolicyFor(breakerPolicy!, limits) : breakerPolicy!;
  };
  const breaker =
    breakerPolicy &&
    createBackendBreaker({
      store: redis ? createRedisBreakerStore({ redis, prefix }) : createMemoryBreakerStore(),
      policy: policyOf,
      now: () => now().getTime(),
    });
  const metrics = createMetrics({
    queueDepth: () => queue.depth(),
    ...(breaker && { modelHealth: () => breaker.health(models.ids) }),
    ...(db.threadMemory && { databaseThreadMemory: db.threadMemory }),
  });
  const events = countCacheHits(
    createEventRecorder({
      write: (batch) => eventRepository.insertMany(batch),
      onDropped: (count, reason, error) => logger.warn('analytics events dropped', { count, reason, error }),
      // PGlite runs one statement at a time (on its own thread): with one small batch in flight, a
      // request's query never waits behind more than one analytics write.
      ...(db.kind === 'pglite' && { maxWritesInFlight: 1, batchSize: 100 }),
    }),
    metrics,
  );

  const singleFlight = redis ? createRedisSingleFlight({ redis, prefix }) : createMemorySingleFlight();
  const activeJobs = redis ? createRedisActiveJobs({ redis, prefix }) : createMemoryActiveJobs();
  const admission = redis ? createRedisJobAdmission({ redis, prefix }) : createComposedJobAdmission({ activeJobs, jobStore });
  const quota = createQuotaService({ store: createQuotaStore(db.prisma, db.sql), monthlyGenerations: config.monthlyGenerations, now });

  const library = createLibraryRepository(db.prisma);
  const images = createImageRepository(db.prisma, db.sql);
  const storage = await createStorage(config.storage);
  const embedder = createPromptEmbedder(config.instantEmbeddings, { warn: (message) => logger.warn(message) });
  await embedder?.ready?.().catch((error: unknown) => {
    throw localModelConfigError(error);
  });
  return {
    db,
    accounts: createAccountRepository(db.prisma),
    apiKeys: createApiKeyRepository(db.prisma, db.sql),
    images,
    library,
    imageFlags: createImageFlagRepository(db.prisma),
    permalinks: createPermalinkRepository(db.prisma),
    styles: createStyleRepository(db.prisma),
    characters: createCharacterRepository(db.prisma),
    jobStore,
    queue,
    storage,
    model: models.default,
    models,
    breaker,
    permits: redis ? createRedisPermitStore({ redis, prefix }) : createMemoryPermitStore(),
    failedJobs: createFailedJobRepository(db.prisma, { retentionDays: config.failedJobDays, now }),
    uploads: createUploadService({
      uploads: createUploadRepository(db.prisma),
      images,
      storage,
      sanitize: sanitizeImageInput,
      budgetBytes: config.uploads.bytesPerAccount,
      ttlHours: config.uploads.ttlHours,
      now,
      newId: randomUUID,
    }),
    embedder,
    libraryIndexer: embedder ? createLibraryIndexer({ library, embedder }) : null,
    upscales: createUpscaleService({
      jobStore,
      queue,
      quota,
      singleFlight,
      activeJobs,
      admission,
      storage,
      places: images,
      findUpscaled: (sourceId, accountId, variant) => images.findUpscaled(sourceId, accountId, variant),
      now,
      newId: randomUUID,
      onError: (message, error) => logger.error(message, { error }),
    }),
    quota,
    events,
    eventStore: eventRepository,
    rateLimiter: redis ? createRedisRateLimiter({ redis, prefix }) : createMemoryRateLimiter(),
    singleFlight,
    idempotency: redis ? createRedisIdempotencyStore({ redis, prefix }) : createMemoryIdempotencyStore(),
    activeJobs,
    admission,
    budget: redis ? createRedisBudgetCounter({ redis, prefix }) : createMemoryBudgetCounter(),
    invalidation,
    webhookStore,
    dashboardSessions: createDashboardSessionRepository(db.prisma),
    signInLinks: createSignInLinkRepository(db.prisma),
    mailer: createMailer(config.mail, logger),
    webhookQueue,
    webhookNotifier,
    metrics,
    async close() {
      await queue.close().catch((e: unknown) => logger.warn('queue close failed', { error: e }));
      await webhookQueue.close().catch((e: unknown) => logger.warn('webhook queue close failed', { error: e }));
      await events.close();
      await jobStore.close();
      await invalidation.close();
      redis?.disconnect();
      await db.close();
    },
  };
}
