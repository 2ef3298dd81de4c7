import type {
  BudgetCounter,
  JobCancellation,
  LibraryIndexer,
  Mailer,
  PlanName,
  PromptSafety,
  PublishableBudget,
  QuotaAccount,
  QuotaState,
} from '@promptpix/core';
import type {
  CacheKey,
  CachedImage,
  EmbedResolver,
  EventRecorder,
  InvalidationBus,
  PermalinkCache,
  StyleResolver,
  GenerationQueue,
  GenerationService,
  IdempotencyStore,
  ImageModel,
  InstantService,
  JobStore,
  QuotaService,
  RateLimiter,
  UploadService,
  UpscaleService,
  SingleFlight,
  Storage,
} from '@promptpix/core';
import type { FailedJobRepository } from '@promptpix/db';
import type {
  AccountRepository,
  ApiKeyRepository,
  CharacterRepository,
  DashboardSessionRepository,
  SignInLinkRepository,
  EventRepository,
  ImageFlagRepository,
  ImageRepository,
  LibraryRepository,
  PermalinkRepository,
  StyleRepository,
  WebhookRepository,
} from '@promptpix/db';
import type { Config, Logger } from '@promptpix/runtime';
import type { DependencyStatus } from '@promptpix/runtime/dependency-status';
import type { Lifecycle } from '@promptpix/runtime/lifecycle';
import type { Metrics } from '@promptpix/runtime/metrics';
import type { OpenStreams } from './http/open-streams';
import type { ServedModels } from './http/model-choice';
import type { UploadSlots } from './http/upload-slots';

/**
 * Everything the gateway talks to, built once by its composition root (build.ts). No route sees all
 * of it: route-groups.ts hands each group its part, and each handler names the fields it uses.
 */
export interface GatewayDeps {
  serviceName: string;
  /** Serve the /demo page (development only). */
  demoPage: boolean;
  /** Absolute base of the service's own URLs (permalinks). */
  publicBaseUrl: string;
  logger: Logger;
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  /** Key lookups for authentication: cached in process, evicted through `invalidation`; `recordUse` notes `lastUsedAt` (throttled, fire-and-forget). */
  credentials: Pick<ApiKeyRepository, 'findActiveByHash'> & { recordUse?: (keyId: string) => void };
  invalidation: InvalidationBus;
  images: ImageRepository;
  library: LibraryRepository;
  libraryIndexer: LibraryIndexer | null;
  imageFlags: ImageFlagRepository;
  permalinks: PermalinkRepository;
  permalinkCache: PermalinkCache;
  styles: StyleRepository;
  styleResolver: StyleResolver;
  characters: CharacterRepository;
  /** Preset id → preview image URL, for the presets whose preview exists. */
  stylePreviews: () => Record<string, string>;
  /** Used by the gateway only for operator tasks (library seed, style previews). */
  model: ImageModel;
  /** The models callers can name (`model`), the default first. */
  models: ServedModels;
  /** Images sent in to edit: uploads (sanitised, budgeted, expiring), and an edit's ids resolved to stored inputs. */
  uploads: UploadService;
  /** POST /api/v1/image/:id/upscale: a larger copy as a job, one quota unit and one of the image's derived places. */
  upscales: UpscaleService;
  /** Image bodies this process reads at once, and per account (UPLOADS_IN_FLIGHT…). */
  uploadSlots: UploadSlots;
  /** Jobs that failed for good, kept FAILED_JOB_DAYS (operator API, dashboard). */
  failedJobs: FailedJobRepository;
  libraryDelaySeconds: number;
  jobStore: JobStore;
  queue: GenerationQueue;
  storage: Storage;
  quota: QuotaService;
  generations: GenerationService;
  instant: InstantService;
  embed: EmbedResolver;
  events: EventRecorder;
  /** Reads of stored analytics events (exports). */
  eventStore: EventRepository;
  rateLimiter: RateLimiter;
  singleFlight: SingleFlight;
  /** The quota for headers on cache hits, read at most once a second per account. */
  recentQuota: (account: QuotaAccount) => Promise<QuotaState>;
  /** Cancels queued or running jobs (DELETE /api/v1/job/:jobId, Cancel-After). */
  cancellation: JobCancellation;
  /** Idempotency-Key records of generate (24 hours). */
  idempotency: IdempotencyStore;
  /** Accounts' webhook secrets and delivery log (operator API). */
  webhookStore: WebhookRepository;
  /** Cap on jobs queued or running per key, by plan. */
  activeJobsPerKey: Record<PlanName, number>;
  /** WEBHOOK_ALLOW_PRIVATE_ADDRESSES: a webhookUrl naming a loopback or private host is accepted (development). */
  webhookPrivateAddressesAllowed: boolean;
  /** Requests a minute per client IP and publishable key; 0 turns the limit off. */
  publishableIpRateLimit: number;
  /** Default budgets of fresh generations through a publishable key (a key may set its own). */
  publishableBudget: PublishableBudget;
  /** The budget counters (the owner's view reads the per-key daily ones). */
  budget: BudgetCounter;
  /** MAX_KEYS_PER_ACCOUNT: live keys an account may hold; one more is a 409. */
  maxKeysPerAccount: number;
  /** MAX_CHARACTERS_PER_ACCOUNT: characters an account may hold; one more is a 409. */
  maxCharactersPerAccount: number;
  /** Job event streams open on this gateway: capped per key and account, ended on revoke or account change. */
  openStreams: OpenStreams;
  /** Screens prompts before any generation or match (README, "Safety"); null when switched off. */
  promptSafety: PromptSafety | null;
  /** Signed-in dashboard browsers (apps/gateway/src/dashboard). */
  dashboardSessions: DashboardSessionRepository;
  /** One-time sign-in links e-mailed to dashboard users (./dashboard/auth). */
  signInLinks: SignInLinkRepository;
  /** Outgoing e-mail (sign-in links, approval notices). */
  mailer: Mailer;
  dashboard: Config['dashboard'];
  /** Express's `trust proxy` (TRUST_PROXY), for client IPs behind a proxy. */
  trustProxy?: string;
  now: () => Date;
  /** How long GET /api/v1/render holds a request for a fresh image. */
  renderWaitMs: number;
  /** The images stored under a render-cache key (remembered in process, evicted on change). */
  findCached(key: CacheKey): Promise<CachedImage[]>;
  /** Operator API token; the admin API refuses every call when unset. */
  adminToken?: string;
  /** Directory served under /files when images live on local disk. */
  localFilesRoot?: string;
  /** This process's Prometheus registry, served at /metrics (behind `metricsToken` when set). */
  metrics: Metrics;
  metricsToken?: string;
  /** This process serves until it starts shutting down (GET /api/ready). */
  lifecycle: Lifecycle;
  /** Database, Redis, storage and the models' backends as seen from here (GET /api/status, promptpix_dependency_up). */
  status: () => Promise<DependencyStatus>;
}
