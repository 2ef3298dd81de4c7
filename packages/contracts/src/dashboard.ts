/**
 * The dashboard's JSON API, under /dashboard/api: zod schemas of what the browser app
 * (apps/dashboard) sends and reads, which the gateway's handlers (apps/gateway/src/dashboard:
 * ./auth, ./api below) validate with and answer. Each type is inferred from its schema (request
 * bodies as sent: `z.input`). The app imports types only, so its bundle carries no zod.
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
 *   POST   /dashboard/api/uploads  multipart, field `image` → 201 Upload (200: the same image again), as POST /api/v1/uploads;
 *                                                             its id goes in the playground's `image` or `mask`
 *   POST   /dashboard/api/images/:id/upscale  {factor?}     → 202 UpscaleAccepted (a job; quota counted as POST /api/v1/image/:id/upscale)
 *
 *   Embed (./api/embed.ts)
 *   GET    /dashboard/api/embed                               → EmbedView
 *   POST   /dashboard/api/preview   {prompt, style?}          → PreviewResult (one embed element, resolved as the page script would)
 */
import { z } from 'zod';
import { adminFailedJobRetriedSchema, adminFailedJobSchema, adminStyleSchema } from './admin';
import {
  type createCharacterSchema,
  createPermalinkSchema,
  keyIdentitySchema,
  patchCharacterSchema,
  type patchKeyLimitsSchema,
  quotaSchema,
  type styleInputSchema,
} from './account-resources';
import { generateBodySchema, imageFormats } from './generate';
import { uploadSchema } from './image-inputs';
import { decodeCursor } from './image-cursor';
import { listBoundOf } from './list-bounds';
import { characterSchema, instantResultSchema, jobSchema, styleTiers } from './responses';
import { text } from './text';
import { plans, visualFamilies } from './vocabulary';

export const SESSION_COOKIE = 'pp_session';
export const CSRF_HEADER = 'X-CSRF-Token';

const timestamp = z.iso.datetime({ offset: true });

// ---- Requests ---------------------------------------------------------------------------------

/** POST /dashboard/api/sign-in. */
export const signInRequestSchema = z.object({
  email: z.string().trim().pipe(z.email().max(320)),
});

/** POST /dashboard/api/sign-in/confirm. */
export const signInConfirmSchema = z.object({
  token: z.string().trim().min(1).max(200),
});

const listBound = (edge: 'from' | 'to') =>
  z.string().transform((value, ctx) => {
    const instant = listBoundOf(value, edge);
    if (!instant) {
      ctx.addIssue({ code: 'custom', message: 'Expected a date (YYYY-MM-DD) or an ISO 8601 instant with its offset, from year 1 to 9999' });
      return z.NEVER;
    }
    return instant;
  });

/** Query of GET /dashboard/api/images. */
export const imageListQuerySchema = z
  .object({
    q: text(0, 200)
      .optional()
      .transform((v) => v?.trim() || undefined),
    style: text(1, 200).optional(),
    from: listBound('from').optional(),
    to: listBound('to').optional(),
    cursor: z
      .string()
      .transform((value, ctx) => {
        const cursor = decodeCursor(value);
        if (!cursor) {
          ctx.addIssue({ code: 'custom', message: 'Invalid cursor: pass nextCursor of the previous page' });
          return z.NEVER;
        }
        return cursor;
      })
      .optional(),
    limit: z.coerce
      .number({ error: 'Expected an integer' })
      .int({ error: 'Expected an integer' })
      .min(1, { error: 'Must be between 1 and 100' })
      .max(100, { error: 'Must be between 1 and 100' })
      .default(24),
  })
  .refine((q) => !q.from || !q.to || q.from < q.to, { error: 'Must not be before from', path: ['to'] });

/** POST /dashboard/api/images/:id/permalink: the operator API's name rule. */
export const imagePermalinkSchema = z.object({ name: createPermalinkSchema.shape.name });

/** PATCH /dashboard/api/characters/:id: the operator API's patch, without images. */
export const patchCharacterBodySchema = patchCharacterSchema.omit({ images: true });

/** GET /dashboard/api/usage(.csv). */
export const usageQuerySchema = z.object({
  days: z.coerce
    .number({ error: 'Expected an integer' })
    .int({ error: 'Expected an integer' })
    .min(1, { error: 'Must be between 1 and 366' })
    .max(366, { error: 'Must be between 1 and 366' })
    .default(30),
});

/** POST /dashboard/api/preview: the public generate's prompt and style rules. */
export const previewBodySchema = z.object({
  prompt: generateBodySchema.shape.prompt,
  style: generateBodySchema.shape.style,
});

/** POST /dashboard/api/playground: a generate body as the public API takes it, without a webhook (the playground watches the job itself). */
export const playgroundBodySchema = generateBodySchema.omit({ webhookUrl: true });

/** A publishable key's budget settings: null means the service default (shown in `defaults`). */
export type KeyLimitsInput = z.input<typeof patchKeyLimitsSchema>;
/** What the character form sends: 1 to 10 photos as data: URLs (or base64), or a specSheet. */
export type CharacterInput = z.input<typeof createCharacterSchema>;
/** What the style form sends. */
export type StyleInput = z.input<typeof styleInputSchema>;
/** What the playground sends: the public generate body without a webhook. */
export type PlaygroundInput = z.input<typeof playgroundBodySchema>;

// ---- Responses --------------------------------------------------------------------------------

export const dashboardAccountSchema = z.object({
  handle: z.string(),
  email: z.string(),
  plan: z.enum(plans),
  status: z.enum(['pending', 'approved']),
});
export type DashboardAccount = z.infer<typeof dashboardAccountSchema>;

export const sessionViewSchema = z.object({ account: dashboardAccountSchema, csrfToken: z.string() });
export type SessionView = z.infer<typeof sessionViewSchema>;

export const signInRequestedSchema = z.object({ message: z.string() });
export type SignInRequested = z.infer<typeof signInRequestedSchema>;

export const imageSummarySchema = z.object({
  id: z.string(),
  prompt: z.string(),
  style: z.string().nullable(),
  width: z.int(),
  height: z.int(),
  format: z.enum(imageFormats),
  url: z.string(),
  createdAt: timestamp,
  pinned: z.boolean(),
  rejected: z.boolean(),
  /** Names of the permalinks holding this image. */
  permalinks: z.array(z.string()),
});
export type ImageSummary = z.infer<typeof imageSummarySchema>;

export const imagePageSchema = z.object({
  images: z.array(imageSummarySchema),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type ImagePage = z.infer<typeof imagePageSchema>;

export const imageDownloadSchema = z.object({
  /** "Original" or e.g. "512×512 WebP". */
  label: z.string(),
  width: z.int(),
  height: z.int(),
  format: z.enum(imageFormats),
  url: z.string(),
});
export type ImageDownload = z.infer<typeof imageDownloadSchema>;

export const imageDetailSchema = imageSummarySchema.extend({
  negativePrompt: z.string().nullable(),
  seed: z.string(),
  characterId: z.string().nullable(),
  /** The original first, then the stored size/format variants derived from it. */
  downloads: z.array(imageDownloadSchema),
});
export type ImageDetail = z.infer<typeof imageDetailSchema>;

export const regenerateAcceptedSchema = z.object({
  jobId: z.string(),
  /** Permalinks the new image joins when the job completes. */
  permalinks: z.array(z.string()),
});
export type RegenerateAccepted = z.infer<typeof regenerateAcceptedSchema>;

export const permalinkViewSchema = z.object({
  name: z.string(),
  /** The permanent URL, /api/img/{handle}/{name}, absolute. */
  url: z.string(),
  pinnedImageId: z.string().nullable(),
  images: z.array(z.object({ id: z.string(), url: z.string(), prompt: z.string(), createdAt: timestamp })),
  /** A ready-to-paste `<img>` tag for the permanent URL. */
  snippet: z.string(),
});
export type PermalinkView = z.infer<typeof permalinkViewSchema>;

export const keyViewSchema = keyIdentitySchema.extend({
  /** The key's first characters, e.g. "pk_live_Ab12". */
  prefix: z.string(),
  createdAt: timestamp,
  lastUsedAt: timestamp.nullable(),
});
export type KeyView = z.infer<typeof keyViewSchema>;

const budget = z.int().nullable();

/** What a publishable key may spend, and what it spent (docs/dashboard.md). */
export const keyLimitsViewSchema = z.object({
  id: z.string(),
  budgetClientPerHour: budget,
  budgetClientPerDay: budget,
  budgetKeyPerHour: budget,
  budgetKeyPerDay: budget,
  /** The service's defaults, used where the key sets none. */
  defaults: z.object({ budgetClientPerHour: z.int(), budgetClientPerDay: z.int(), budgetKeyPerHour: z.int(), budgetKeyPerDay: z.int() }),
  signedPrompts: z.boolean(),
  /** The secret the site's server signs prompts with (HMAC-SHA256); keep it on the server. */
  signingSecret: z.string().nullable(),
  /** Last time a budget refused a fresh generation. */
  budgetHitAt: timestamp.nullable(),
  /** Fresh generations the key started, per UTC day, oldest first (the last 7 days, today included). */
  freshByDay: z.array(z.object({ date: z.iso.date(), count: z.int() })),
});
export type KeyLimitsView = z.infer<typeof keyLimitsViewSchema>;

export const keyCreatedSchema = z.object({
  key: keyViewSchema,
  /** The whole key. Shown once: only its hash is stored. */
  secret: z.string(),
});
export type KeyCreated = z.infer<typeof keyCreatedSchema>;

/** The public API's `Character`, with what the owner may also see and edit. */
export const characterViewSchema = characterSchema.extend({
  specSheet: z.string().nullable(),
  behavior: z.enum(['match', 'lock']),
  lockedStyle: z.string().nullable(),
  lockedFamily: z.enum(visualFamilies).nullable(),
  createdAt: timestamp,
});
export type CharacterView = z.infer<typeof characterViewSchema>;

export const presetStyleViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()),
  category: z.string(),
  tier: z.enum(styleTiers),
  previewUrl: z.string().nullable(),
  /** True when the account's plan does not include this preset. */
  locked: z.boolean(),
});
export type PresetStyleView = z.infer<typeof presetStyleViewSchema>;

/** An own style: the operator API's view, with its creation time. */
export const ownStyleViewSchema = adminStyleSchema.extend({ createdAt: timestamp });
export type OwnStyleView = z.infer<typeof ownStyleViewSchema>;

export const stylesViewSchema = z.object({
  presets: z.array(presetStyleViewSchema),
  own: z.array(ownStyleViewSchema),
  /** Families a character can be locked to (for the character form). */
  visualFamilies: z.array(z.enum(visualFamilies)),
});
export type StylesView = z.infer<typeof stylesViewSchema>;

export const usageDaySchema = z.object({
  /** YYYY-MM-DD, UTC. */
  date: z.iso.date(),
  generations: z.int(),
  cacheHits: z.int(),
  impressions: z.int(),
  clicks: z.int(),
});
export type UsageDay = z.infer<typeof usageDaySchema>;

export const usageViewSchema = z.object({
  plan: z.enum(plans),
  quota: quotaSchema,
  rateLimit: z.object({ requestsPerMinute: z.int() }),
  /** One entry per day, oldest first, days with no events included. */
  daily: z.array(usageDaySchema),
});
export type UsageView = z.infer<typeof usageViewSchema>;

export const embedViewSchema = z.object({
  /** Absolute URL of /service-client.js. */
  scriptUrl: z.string(),
  publishableKeys: z.array(keyViewSchema),
  /** The script tag with `{{KEY}}` where the publishable key goes, and a sample `<img>`. */
  snippetTemplate: z.string(),
});
export type EmbedView = z.infer<typeof embedViewSchema>;

export const previewResultSchema = z.object({
  status: z.enum(['ready', 'generating', 'failed']),
  imageUrl: z.string().optional(),
  imageId: z.string().optional(),
  jobId: z.string().optional(),
  error: z.string().optional(),
});
export type PreviewResult = z.infer<typeof previewResultSchema>;

export const playgroundAcceptedSchema = z.object({
  mode: z.literal('generate'),
  jobId: z.string(),
  /** The account's quota after this request, as X-Quota-* would say it. */
  quota: quotaSchema,
});
export type PlaygroundAccepted = z.infer<typeof playgroundAcceptedSchema>;

/** POST /dashboard/api/images/:id/upscale: the upscale's job and the quota after it. */
export const upscaleAcceptedSchema = z.object({
  jobId: z.string(),
  quota: quotaSchema,
});
export type UpscaleAccepted = z.infer<typeof upscaleAcceptedSchema>;

export const playgroundMatchSchema = instantResultSchema.extend({ mode: z.literal('instant') });
export type PlaygroundMatch = z.infer<typeof playgroundMatchSchema>;

/** A job of the account that failed for good (kept FAILED_JOB_DAYS), with the reason its caller read: the operator API's view without the account. */
export const failedJobViewSchema = adminFailedJobSchema.omit({ account: true });
export type FailedJobView = z.infer<typeof failedJobViewSchema>;

export const failedJobPageSchema = z.object({ data: z.array(failedJobViewSchema), nextCursor: z.string().nullable() });
export type FailedJobPage = z.infer<typeof failedJobPageSchema>;

/** A retry's new job: a fresh generation (quota counted), a cache hit or variant of a stored image, or a joined job in flight (the operator's retry, scoped to the account). */
export const failedJobRetriedSchema = adminFailedJobRetriedSchema;
export type FailedJobRetried = z.infer<typeof failedJobRetriedSchema>;

export interface DashboardAnswer {
  method: 'GET' | 'POST' | 'PATCH';
  /** The route, `:name` for a path parameter. */
  path: string;
  /** When one route answers different shapes by status (the playground). */
  status?: number;
  schema: z.ZodType;
}

/** Every signed-in route's successful JSON answer, as listed above. The dashboard tests replay each answer they get through it. */
export const dashboardAnswers: readonly DashboardAnswer[] = [
  { method: 'POST', path: '/dashboard/api/sign-in', schema: signInRequestedSchema },
  { method: 'POST', path: '/dashboard/api/sign-in/confirm', schema: sessionViewSchema },
  { method: 'GET', path: '/dashboard/api/session', schema: sessionViewSchema },
  { method: 'GET', path: '/dashboard/api/images', schema: imagePageSchema },
  { method: 'GET', path: '/dashboard/api/images/:id', schema: imageDetailSchema },
  { method: 'POST', path: '/dashboard/api/images/:id/pin', schema: imageDetailSchema },
  { method: 'POST', path: '/dashboard/api/images/:id/unpin', schema: imageDetailSchema },
  { method: 'POST', path: '/dashboard/api/images/:id/reject', schema: imageDetailSchema },
  { method: 'POST', path: '/dashboard/api/images/:id/permalink', schema: permalinkViewSchema },
  { method: 'POST', path: '/dashboard/api/images/:id/regenerate', schema: regenerateAcceptedSchema },
  { method: 'GET', path: '/dashboard/api/jobs/:jobId', schema: jobSchema },
  { method: 'GET', path: '/dashboard/api/permalinks', schema: z.object({ permalinks: z.array(permalinkViewSchema) }) },
  { method: 'GET', path: '/dashboard/api/keys', schema: z.object({ keys: z.array(keyViewSchema) }) },
  { method: 'POST', path: '/dashboard/api/keys', schema: keyCreatedSchema },
  { method: 'GET', path: '/dashboard/api/keys/:id/limits', schema: keyLimitsViewSchema },
  { method: 'PATCH', path: '/dashboard/api/keys/:id/limits', schema: keyLimitsViewSchema },
  { method: 'POST', path: '/dashboard/api/keys/:id/rotate', schema: keyCreatedSchema },
  { method: 'GET', path: '/dashboard/api/characters', schema: z.object({ characters: z.array(characterViewSchema) }) },
  { method: 'POST', path: '/dashboard/api/characters', schema: characterViewSchema },
  { method: 'PATCH', path: '/dashboard/api/characters/:id', schema: characterViewSchema },
  { method: 'GET', path: '/dashboard/api/styles', schema: stylesViewSchema },
  { method: 'POST', path: '/dashboard/api/styles', schema: ownStyleViewSchema },
  { method: 'PATCH', path: '/dashboard/api/styles/:id', schema: ownStyleViewSchema },
  { method: 'GET', path: '/dashboard/api/usage', schema: usageViewSchema },
  { method: 'GET', path: '/dashboard/api/failed-jobs', schema: failedJobPageSchema },
  { method: 'POST', path: '/dashboard/api/failed-jobs/:jobId/retry', schema: failedJobRetriedSchema },
  { method: 'POST', path: '/dashboard/api/playground', status: 202, schema: playgroundAcceptedSchema },
  { method: 'POST', path: '/dashboard/api/playground', status: 200, schema: playgroundMatchSchema },
  { method: 'POST', path: '/dashboard/api/uploads', schema: uploadSchema },
  { method: 'POST', path: '/dashboard/api/images/:id/upscale', schema: upscaleAcceptedSchema },
  { method: 'GET', path: '/dashboard/api/embed', schema: embedViewSchema },
  { method: 'POST', path: '/dashboard/api/preview', schema: previewResultSchema },
];
