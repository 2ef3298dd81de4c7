import {
  createCacheMemo,
  createGroupCommit,
  createEmbedResolver,
  createGenerationService,
  createInstantService,
  createJobCancellation,
  createKeyCache,
  createPermalinkCache,
  createPromptSafety,
  createRecentQuota,
  createStyleResolver,
  memoizePromptSafety,
  newId,
  type CacheKey,
} from '@promptpix/core';
import { isStatementRefused, type CacheLookupWithClaim } from '@promptpix/db';
import type { Config, Infrastructure, Logger } from '@promptpix/runtime';
import { infrastructureDependencies, reportDependencyHealth } from '@promptpix/runtime/dependency-status';
import { createLifecycle, type Lifecycle } from '@promptpix/runtime/lifecycle';
import { instrumentGenerations, reportCacheBytes } from '@promptpix/runtime/metrics';
import type { GatewayDeps } from './deps';
import { splitIntoRouteGroups, type GatewayRouteGroups } from './route-groups';
import { createLastUsedRecorder } from './http/key-last-used';
import { createBudgetHitRecorder } from './http/budget-hits';
import { createOpenStreams } from './http/open-streams';
import { createUploadSlots } from './http/upload-slots';

export const SERVICE_NAME = 'promptpix';

/** The gateway's composition root: every service built once, then handed to each route group as only its part. */
export function buildGateway(...args: Parameters<typeof gatewayDependencies>): GatewayRouteGroups {
  return splitIntoRouteGroups(gatewayDependencies(...args));
}

function gatewayDependencies(
  infra: Infrastructure,
  config: Config,
  logger: Logger,
  adminToken: string | undefined,
  stylePreviews: () => Record<string, string> = () => ({}),
  lifecycle: Lifecycle = createLifecycle(),
): GatewayDeps {
  // In-process caches of hot lookups, evicted through the invalidation bus when their data changes.
  const memo = createCacheMemo();
  const status = infrastructureDependencies(infra, { redis: !!config.redis, logger });
  reportDependencyHealth(infra.metrics, status);
  const findCached = (key: CacheKey) => memo.find(key, (k) => infra.images.findCached(k));
  // Group commit: the fresh generations of one event-loop turn share one statement (each still gets
  // its own images and unit); a statement the database refuses is retried per lookup.
  const cachedOrReserved = createGroupCommit({
    run: (lookups: CacheLookupWithClaim[]) => infra.images.findCachedOrReserveMany(lookups),
    maxItems: 100,
    retryAlone: isStatementRefused,
  });
  const findCachedOrReserve = async (key: CacheKey, quota: { periodStart: Date; limit: number }) => {
    let reservedUsed: number | null = null;
    const images = await memo.find(key, async (k) => {
      const found = await cachedOrReserved({ key: k, quota });
      reservedUsed = found.reservedUsed;
      return found.images;
    });
    return { images, reservedUsed };
  };
  const promptSafety = config.safety ? memoizePromptSafety(createPromptSafety(config.safety)) : null;
  const styleResolver = createStyleResolver({ findOwn: (accountId, id) => infra.styles.findOwn(accountId, id) });
  const generations = instrumentGenerations(
    infra.metrics,
    createGenerationService({
      jobStore: infra.jobStore,
      queue: infra.queue,
      quota: infra.quota,
      cache: {
        findCached,
        findCachedOrReserve,
        remembered: (key) => memo.peek(key),
        takeDerivedPlace: (sourceId, cap) => infra.images.takeDerivedPlace(sourceId, cap),
        giveBackDerivedPlace: (sourceId) => infra.images.giveBackDerivedPlace(sourceId),
      },
      singleFlight: infra.singleFlight,
      activeJobs: infra.activeJobs,
      budget: infra.budget,
      admission: infra.admission,
      storage: infra.storage,
      events: infra.events,
      webhooks: infra.webhookNotifier,
      now: () => new Date(),
      newId,
      onError: (message, error) => logger.error(message, { error }),
    }),
  );
  const instant = createInstantService({
    library: infra.library,
    embedder: infra.embedder ?? undefined,
    saveCopy: async (copy) => {
      await infra.images.saveLibraryCopy(copy);
    },
    storage: infra.storage,
    now: () => new Date(),
    libraryDelaySeconds: config.libraryDelaySeconds,
    minScore: config.instantMinScore,
  });
  const onBudgetExceeded = createBudgetHitRecorder(infra, logger);
  const keyCache = createKeyCache({ lookup: (hash) => infra.apiKeys.findActiveByHash(hash) });
  const permalinkCache = createPermalinkCache({ load: (handle, name) => infra.permalinks.findForServing(handle, name) });
  const openStreams = createOpenStreams(config.jobStreams);
  reportCacheBytes(infra.metrics, {
    renderCache: memo.bytes,
    keys: keyCache.bytes,
    permalinks: permalinkCache.bytes,
    ...(promptSafety && { promptSafety: promptSafety.bytes }),
  });
  infra.invalidation.subscribe((message) => {
    keyCache.invalidate(message);
    openStreams.invalidate(message);
    permalinkCache.invalidate(message);
    memo.invalidate(message);
  });
  return {
    serviceName: SERVICE_NAME,
    demoPage: config.demoPage,
    publicBaseUrl: config.publicBaseUrl,
    logger,
    accounts: infra.accounts,
    apiKeys: infra.apiKeys,
    credentials: {
      findActiveByHash: (hash) => keyCache.get(hash),
      recordUse: createLastUsedRecorder({
        touch: (id, at) => infra.apiKeys.touchLastUsed(id, at),
        now: () => new Date(),
        onError: (error) => logger.warn('could not record a key use', { error }),
      }),
    },
    invalidation: infra.invalidation,
    images: infra.images,
    library: infra.library,
    libraryIndexer: infra.libraryIndexer,
    imageFlags: infra.imageFlags,
    permalinks: infra.permalinks,
    permalinkCache,
    styles: infra.styles,
    styleResolver,
    characters: infra.characters,
    stylePreviews,
    model: infra.model,
    models: infra.models,
    failedJobs: infra.failedJobs,
    uploads: infra.uploads,
    uploadSlots: createUploadSlots(config.uploads.inFlight),
    upscales: infra.upscales,
    libraryDelaySeconds: config.libraryDelaySeconds,
    jobStore: infra.jobStore,
    queue: infra.queue,
    storage: infra.storage,
    quota: infra.quota,
    events: infra.events,
    eventStore: infra.eventStore,
    rateLimiter: infra.rateLimiter,
    singleFlight: infra.singleFlight,
    idempotency: infra.idempotency,
    recentQuota: createRecentQuota((account) => infra.quota.peek(account)),
    webhookStore: infra.webhookStore,
    cancellation: createJobCancellation({ ...infra, now: () => new Date() }),
    activeJobsPerKey: config.activeJobsPerKey,
    webhookPrivateAddressesAllowed: config.webhooks.allowPrivateAddresses,
    publishableIpRateLimit: config.publishableIpRateLimit,
    publishableBudget: config.publishableBudget,
    budget: infra.budget,
    maxKeysPerAccount: config.maxKeysPerAccount,
    maxCharactersPerAccount: config.maxCharactersPerAccount,
    openStreams,
    trustProxy: config.trustProxy,
    dashboardSessions: infra.dashboardSessions,
    signInLinks: infra.signInLinks,
    mailer: infra.mailer,
    dashboard: config.dashboard,
    promptSafety,
    now: () => new Date(),
    renderWaitMs: config.renderWaitMs,
    findCached,
    generations,
    instant,
    embed: createEmbedResolver({
      findCachedMany: (accountId, keys) => memo.findMany(accountId, keys, (a, k) => infra.images.findCachedMany(a, k)),
      findPermalinks: (accountId, names) => infra.permalinks.findManyByName(accountId, names),
      generations,
      instant,
      storage: infra.storage,
      events: infra.events,
      resolveStyle: (account, style) => styleResolver.resolve(account, style),
      characterExists: (accountId, id) => infra.characters.exists(accountId, id),
      promptSafety,
      onBudgetExceeded,
      now: () => new Date(),
    }),
    adminToken,
    localFilesRoot: config.storage.kind === 'local' ? config.storage.root : undefined,
    metrics: infra.metrics,
    metricsToken: config.metrics.token,
    lifecycle,
    status,
  };
}
