import type { GatewayDeps } from './deps';

/**
 * What each route group may use. The composition root (build.ts) hands every group only its own
 * part of the gateway's dependencies, so a handler that reaches for anything else does not compile.
 */
export const ROUTE_GROUP_KEYS = {
  /** The middleware every request passes (request ids, logs, metrics, trust proxy, /v1 error shape). */
  app: ['logger', 'metrics', 'trustProxy'],
  /** Probes and metrics: /api/health, /api/ready, /api/status, /metrics. */
  ops: ['serviceName', 'lifecycle', 'status', 'metrics', 'metricsToken'],
  /** The native API under /api/v1 and the permalinks. */
  publicApi: [
    'activeJobsPerKey',
    'cancellation',
    'characters',
    'credentials',
    'embed',
    'events',
    'findCached',
    'generations',
    'idempotency',
    'imageFlags',
    'images',
    'instant',
    'invalidation',
    'jobStore',
    'logger',
    'models',
    'now',
    'openStreams',
    'permalinkCache',
    'promptSafety',
    'publishableBudget',
    'publishableIpRateLimit',
    'queue',
    'rateLimiter',
    'recentQuota',
    'renderWaitMs',
    'storage',
    'stylePreviews',
    'styleResolver',
    'styles',
    'webhookPrivateAddressesAllowed',
  ],
  /** The OpenAI-compatible surface under /v1. */
  openAi: [
    'activeJobsPerKey',
    'cancellation',
    'characters',
    'credentials',
    'findCached',
    'generations',
    'images',
    'jobStore',
    'logger',
    'metrics',
    'models',
    'now',
    'promptSafety',
    'quota',
    'rateLimiter',
    'renderWaitMs',
    'storage',
    'styleResolver',
  ],
  /** The dashboard: sign-in, its JSON API and its built pages. */
  dashboard: [
    'accounts',
    'activeJobsPerKey',
    'apiKeys',
    'budget',
    'cancellation',
    'characters',
    'credentials',
    'dashboard',
    'dashboardSessions',
    'embed',
    'eventStore',
    'events',
    'failedJobs',
    'generations',
    'idempotency',
    'imageFlags',
    'images',
    'instant',
    'invalidation',
    'jobStore',
    'logger',
    'mailer',
    'maxCharactersPerAccount',
    'maxKeysPerAccount',
    'models',
    'now',
    'openStreams',
    'permalinks',
    'promptSafety',
    'publicBaseUrl',
    'publishableBudget',
    'queue',
    'quota',
    'rateLimiter',
    'signInLinks',
    'storage',
    'stylePreviews',
    'styleResolver',
    'styles',
    'webhookPrivateAddressesAllowed',
  ],
  /** The operator API under /admin/api/v1. */
  admin: [
    'accounts',
    'adminToken',
    'apiKeys',
    'characters',
    'dashboard',
    'dashboardSessions',
    'eventStore',
    'events',
    'failedJobs',
    'generations',
    'images',
    'invalidation',
    'library',
    'libraryDelaySeconds',
    'libraryIndexer',
    'logger',
    'mailer',
    'maxCharactersPerAccount',
    'maxKeysPerAccount',
    'model',
    'models',
    'now',
    'permalinks',
    'publicBaseUrl',
    'queue',
    'signInLinks',
    'storage',
    'styles',
    'webhookStore',
  ],
  /** The page script, the API docs, the demo page and, on local disk, the image files. */
  pages: ['demoPage', 'publicBaseUrl', 'localFilesRoot'],
} as const satisfies Record<string, readonly (keyof GatewayDeps)[]>;

export type RouteGroup = keyof typeof ROUTE_GROUP_KEYS;
export type RouteGroupDeps<G extends RouteGroup> = Pick<GatewayDeps, (typeof ROUTE_GROUP_KEYS)[G][number]>;
export type GatewayRouteGroups = { [G in RouteGroup]: RouteGroupDeps<G> };

function pickGroup<G extends RouteGroup>(deps: GatewayDeps, group: G): RouteGroupDeps<G> {
  return Object.fromEntries(ROUTE_GROUP_KEYS[group].map((key) => [key, deps[key]])) as RouteGroupDeps<G>;
}

export function splitIntoRouteGroups(deps: GatewayDeps): GatewayRouteGroups {
  return {
    app: pickGroup(deps, 'app'),
    ops: pickGroup(deps, 'ops'),
    publicApi: pickGroup(deps, 'publicApi'),
    openAi: pickGroup(deps, 'openAi'),
    dashboard: pickGroup(deps, 'dashboard'),
    admin: pickGroup(deps, 'admin'),
    pages: pickGroup(deps, 'pages'),
  };
}
