/**
 * The dashboard's JSON API, under /dashboard/api: the shapes the browser app (apps/dashboard)
 * reads and the gateway's handlers (apps/gateway/src/dashboard: ./auth, ./api below) answer. The
 * app imports types only, so its bundle carries none of this module.
 *
 * Authentication: the `pp_session` cookie (httpOnly, SameSite=Lax, Secure in production), set by
 * POST /dashboard/api/sign-in/confirm. Every request other than GET and HEAD also carries the
 * session's `X-CSRF-Token` (from GET /dashboard/api/session). Errors are the public API's shape:
 * `{ error, details? }` with the zod `fieldErrors` under `details` for 400s.
 *
 *   Signing in (./auth)
 *   POST   /dashboard/api/sign-in            {email}  → 202 SignInRequested (same answer whether or not the address is known)
 *   POST   /dashboard/api/sign-in/confirm    {token}  → 200 SessionView + cookie; 400 invalid, 410 expired or used, 403 suspended/banned
 *   GET    /dashboard/api/session                     → 200 SessionView; 401 signed out
 *   POST   /dashboard/api/sign-out                    → 204, cookie cleared
 *
 *   Everything below needs an approved account: a pending one gets 403 "Account pending approval".
 *   Another account's resource, or an unknown id, is 404.
 *
 *   Images (./api/images.ts)
 *   GET    /dashboard/api/images?q&style&from&to&cursor&limit → ImagePage (newest first)
 *   GET    /dashboard/api/images/:id                          → ImageDetail
 *   POST   /dashboard/api/images/:id/pin | /unpin | /reject   → ImageDetail
 *   POST   /dashboard/api/images/:id/permalink   {name}       → PermalinkView (created, or the image added to it)
 *   POST   /dashboard/api/images/:id/regenerate               → 202 RegenerateAccepted (quota counted; added to the image's permalinks when done)
 *   GET    /dashboard/api/jobs/:jobId                         → JobView (the public API's job)
 *
 *   Permalinks (./api/permalinks.ts)
 *   GET    /dashboard/api/permalinks                          → { permalinks: PermalinkView[] }
 *
 *   Keys (./api/keys.ts)
 *   GET    /dashboard/api/keys                                → { keys: KeyView[] } (live keys)
 *   POST   /dashboard/api/keys   {kind, name, domains}        → 201 KeyCreated (the key in clear, this once)
 *   DELETE /dashboard/api/keys/:id                            → 204
 *   GET    /dashboard/api/keys/:id/limits                     → KeyLimitsView (publishable keys: budgets, signing secret, fresh generations per day)
 *   PATCH  /dashboard/api/keys/:id/limits  KeyLimitsInput      → KeyLimitsView
 *   POST   /dashboard/api/keys/:id/rotate                     → 201 KeyCreated (same settings; the old key revoked)
 *
 *   Characters (./api/characters.ts)
 *   GET    /dashboard/api/characters                          → { characters: CharacterView[] }
 *   POST   /dashboard/api/characters  CharacterInput          → 201 CharacterView
 *   PATCH  /dashboard/api/characters/:id  Partial<CharacterInput> without images → CharacterView
 *   DELETE /dashboard/api/characters/:id                      → 204
 *
 *   Styles (./api/styles.ts)
 *   GET    /dashboard/api/styles                              → StylesView
 *   POST   /dashboard/api/styles  StyleInput                  → 201 OwnStyleView
 *   PATCH  /dashboard/api/styles/:id  Partial<StyleInput>     → OwnStyleView
 *   DELETE /dashboard/api/styles/:id                          → 204
 *
 *   Usage (./api/usage.ts)
 *   GET    /dashboard/api/usage?days=30                       → UsageView
 *   GET    /dashboard/api/usage.csv?days=30                   → text/csv: date,generations,cache_hits,impressions,clicks
 *   GET    /dashboard/api/failed-jobs?model&since&cursor&limit → FailedJobPage (the account's jobs that failed for good, newest first)
 *   POST   /dashboard/api/failed-jobs/:jobId/retry           → 202 FailedJobRetried (once per job: 409 with `retriedAs`; quota counted, 402 when used up)
 *
 *   Playground (./api/playground.ts)
 *   POST   /dashboard/api/playground  PlaygroundInput      → 202 PlaygroundAccepted (a job; quota counted as POST /api/v1/generate)
 *                                                           | 200 PlaygroundMatch (mode instant); 429 past the plan's rate limit
 *   GET    /dashboard/api/jobs/:jobId/events                → text/event-stream, as GET /api/v1/job/:jobId/events
 *
 *   Embed (./api/embed.ts)
 *   GET    /dashboard/api/embed                               → EmbedView
 *   POST   /dashboard/api/preview   {prompt, style?}          → PreviewResult (one embed element, resolved as the page script would)
 */
import type { GenerateBodyInput } from './generate';
import type { InstantResult, JobView } from './responses';
import type { PlanName } from './vocabulary';

export const SESSION_COOKIE = 'pp_session';
export const CSRF_HEADER = 'X-CSRF-Token';

export interface DashboardAccount {
  handle: string;
  email: string;
  plan: PlanName;
  status: 'pending' | 'approved';
}

export interface SessionView {
  account: DashboardAccount;
  csrfToken: string;
}

export interface SignInRequested {
  message: string;
}

export interface ImageSummary {
  id: string;
  prompt: string;
  style: string | null;
  width: number;
  height: number;
  format: 'png' | 'jpeg' | 'webp';
  url: string;
  createdAt: string;
  pinned: boolean;
  rejected: boolean;
  /** Names of the permalinks holding this image. */
  permalinks: string[];
}

export interface ImagePage {
  images: ImageSummary[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export interface ImageDownload {
  /** "Original" or e.g. "512×512 WebP". */
  label: string;
  width: number;
  height: number;
  format: 'png' | 'jpeg' | 'webp';
  url: string;
}

export interface ImageDetail extends ImageSummary {
  negativePrompt: string | null;
  seed: string;
  characterId: string | null;
  /** The original first, then the stored size/format variants derived from it. */
  downloads: ImageDownload[];
}

export interface RegenerateAccepted {
  jobId: string;
  /** Permalinks the new image joins when the job completes. */
  permalinks: string[];
}

export interface PermalinkView {
  name: string;
  /** The permanent URL, /api/img/{handle}/{name}, absolute. */
  url: string;
  pinnedImageId: string | null;
  images: Array<{ id: string; url: string; prompt: string; createdAt: string }>;
  /** A ready-to-paste `<img>` tag for the permanent URL. */
  snippet: string;
}

export interface KeyView {
  id: string;
  kind: 'secret' | 'publishable';
  name: string;
  /** The key's first characters, e.g. "pk_live_Ab12". */
  prefix: string;
  domains: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

/** A publishable key's budget settings: null means the service default (shown in `defaults`). */
export interface KeyLimitsInput {
  budgetClientPerHour?: number | null;
  budgetClientPerDay?: number | null;
  budgetKeyPerHour?: number | null;
  budgetKeyPerDay?: number | null;
  signedPrompts?: boolean;
}

/** What a publishable key may spend, and what it spent (docs/dashboard.md). */
export interface KeyLimitsView {
  id: string;
  budgetClientPerHour: number | null;
  budgetClientPerDay: number | null;
  budgetKeyPerHour: number | null;
  budgetKeyPerDay: number | null;
  /** The service's defaults, used where the key sets none. */
  defaults: { budgetClientPerHour: number; budgetClientPerDay: number; budgetKeyPerHour: number; budgetKeyPerDay: number };
  signedPrompts: boolean;
  /** The secret the site's server signs prompts with (HMAC-SHA256); keep it on the server. */
  signingSecret: string | null;
  /** Last time a budget refused a fresh generation. */
  budgetHitAt: string | null;
  /** Fresh generations the key started, per UTC day, oldest first (the last 7 days, today included). */
  freshByDay: Array<{ date: string; count: number }>;
}

export interface KeyCreated {
  key: KeyView;
  /** The whole key. Shown once: only its hash is stored. */
  secret: string;
}

export interface CharacterInput {
  name: string;
  description?: string | null;
  specSheet?: string | null;
  behavior?: 'match' | 'lock';
  lockedStyle?: string | null;
  lockedFamily?: string | null;
  /** 1 to 10 photos as data: URLs (or base64); or give a specSheet instead. */
  images?: string[];
}

export interface CharacterView {
  id: string;
  name: string;
  description: string | null;
  specSheet: string | null;
  behavior: 'match' | 'lock';
  lockedStyle: string | null;
  lockedFamily: string | null;
  referenceCount: number;
  createdAt: string;
}

export interface StyleInput {
  name: string;
  description?: string | null;
  tags?: string[];
  baseStyle?: string | null;
  promptTemplate?: string | null;
}

export interface PresetStyleView {
  id: string;
  name: string;
  description: string | null;
  tags: string[];
  category: string;
  tier: 'free' | 'starter' | 'pro' | 'business';
  previewUrl: string | null;
  /** True when the account's plan does not include this preset. */
  locked: boolean;
}

export interface OwnStyleView {
  id: string;
  name: string;
  description: string | null;
  tags: string[];
  baseStyle: string | null;
  promptTemplate: string | null;
  createdAt: string;
}

export interface StylesView {
  presets: PresetStyleView[];
  own: OwnStyleView[];
  /** Families a character can be locked to (for the character form). */
  visualFamilies: string[];
}

export interface UsageDay {
  /** YYYY-MM-DD, UTC. */
  date: string;
  generations: number;
  cacheHits: number;
  impressions: number;
  clicks: number;
}

export interface UsageView {
  plan: PlanName;
  quota: { used: number; limit: number; resetAt: string };
  rateLimit: { requestsPerMinute: number };
  /** One entry per day, oldest first, days with no events included. */
  daily: UsageDay[];
}

export interface EmbedView {
  /** Absolute URL of /service-client.js. */
  scriptUrl: string;
  publishableKeys: KeyView[];
  /** The script tag with `{{KEY}}` where the publishable key goes, and a sample `<img>`. */
  snippetTemplate: string;
}

export interface PreviewResult {
  status: 'ready' | 'generating' | 'failed';
  imageUrl?: string;
  imageId?: string;
  jobId?: string;
  error?: string;
}

/** What the playground sends: the public generate body without a webhook. */
export type PlaygroundInput = Omit<GenerateBodyInput, 'webhookUrl'>;

export interface PlaygroundAccepted {
  mode: 'generate';
  jobId: string;
  /** The account's quota after this request, as X-Quota-* would say it. */
  quota: { used: number; limit: number; resetAt: string };
}

export type PlaygroundMatch = { mode: 'instant' } & InstantResult;

/** One event of the job's stream: the job, plus the jobs ahead of it while it waits. */
export type JobProgressEvent = JobView & { position?: number };

/** A job of the account that failed for good (kept FAILED_JOB_DAYS), with the reason its caller read. */
export interface FailedJobView {
  jobId: string;
  model: string;
  reason: string;
  prompt: string;
  style: string | null;
  width: number;
  height: number;
  createdAt: string;
  failedAt: string;
  /** The job a retry (the account's or an operator's) started, if any. */
  retriedAs: string | null;
  retriedAt: string | null;
}

export interface FailedJobPage {
  data: FailedJobView[];
  nextCursor: string | null;
}

/** A retry's new job: a fresh generation (quota counted), a cache hit or variant of a stored image, or a joined job in flight. */
export interface FailedJobRetried {
  jobId: string;
  retryOf: string;
  status: JobView['status'];
  outcome: 'generated' | 'cached' | 'derived' | 'joined';
}
