import { z } from 'zod';
import { ErrorMessages } from './errors';

/**
 * Response bodies of the public API (interface spec, "Resources" and "Endpoints"). They are the
 * wire types the SDK and the page script use, and the OpenAPI document is generated from them.
 * The gateway builds its answers to match; the OpenAPI contract test checks recorded responses
 * against these schemas, so they cannot drift apart.
 */

const isoTimestamp = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 timestamp', example: '2026-11-23T12:00:00.000Z' });

export const jobStatuses = ['queued', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof jobStatuses)[number];

/** Job as the API shows it: fields appear only once they have a value. */
export const jobSchema = z
  .object({
    jobId: z.string().meta({ description: 'Identifier of the job', example: '0f8c3b2e-4c1d-4e55-9a8e-2f1f0d7c9b11' }),
    status: z.enum(jobStatuses),
    createdAt: isoTimestamp,
    imageUrl: z.url().optional().meta({ description: 'Present only when completed' }),
    imageId: z.string().optional().meta({ description: 'Present only when completed; stable identifier of the image' }),
    error: z.string().optional().meta({ description: 'Present only when failed; says why' }),
    completedAt: isoTimestamp.optional().meta({ description: 'Present once finished' }),
    seed: z.int().min(0).max(4294967295).optional().meta({ description: 'Extension: the seed the image was made with; present when completed', example: 42 }),
    revisedPrompt: z.string().optional().meta({
      description:
        'What the model says it drew (the built-in model names the subjects, setting and style it drew); present when completed by a model that says',
      example: 'a lighthouse on a cliff, sunset palette, watercolor',
    }),
  })
  .meta({ id: 'Job', description: 'A generation job. It lives one hour, then is gone (404).' });
export type JobView = z.infer<typeof jobSchema>;

/**
 * One state of a job from its event stream (GET /api/v1/job/:jobId/events, and the dashboard's
 * /dashboard/api/jobs/:jobId/events): the job, plus `position` (jobs waiting ahead of it; 0 = next) while queued.
 */
export const jobProgressEventSchema = jobSchema.extend({ position: z.int().min(0).optional() });
export type JobProgressEvent = z.infer<typeof jobProgressEventSchema>;

export const generateAcceptedSchema = z
  .object({ jobId: z.string(), status: z.literal('queued') })
  .meta({ id: 'GenerateAccepted', description: 'Generate mode: the job to poll. On a cache hit the job is already completed when polled.' });
export type GenerateAccepted = z.infer<typeof generateAcceptedSchema>;

export const matchKinds = ['exact', 'nearest'] as const;

export const instantResultSchema = z
  .object({
    status: z.literal('completed'),
    imageUrl: z.url(),
    imageId: z.string(),
    match: z.enum(matchKinds).meta({ description: 'exact: this prompt and style was asked before; nearest: the closest library image' }),
    matchScore: z.number().min(0).max(1).meta({ example: 0.82 }),
    poolImageId: z.string().meta({ description: 'The shared-library image; can be saved as a permalink' }),
  })
  .meta({ id: 'InstantResult', description: 'Instant mode: the closest shared-library image, at once and free.' });
export type InstantResult = z.infer<typeof instantResultSchema>;

export const embedStatuses = ['ready', 'generating', 'failed'] as const;

export const embedResultSchema = z
  .object({
    id: z.string().meta({ description: 'The id sent' }),
    status: z.enum(embedStatuses),
    imageUrl: z.url().optional().meta({ description: 'Set when ready' }),
    imageId: z.string().optional().meta({ description: 'Set when ready' }),
    jobId: z.string().optional().meta({ description: 'Set when generating; poll it' }),
    error: z.string().optional().meta({ description: 'Set when failed' }),
    match: z.enum(matchKinds).optional().meta({ description: 'On library matches' }),
    matchScore: z.number().min(0).max(1).nullable().optional().meta({ description: '0 to 1, or null when unscored' }),
    poolImageId: z.string().optional().meta({ description: 'The library image' }),
  })
  .meta({ id: 'EmbedResult' });
export type EmbedResult = z.infer<typeof embedResultSchema>;

export const embedResolveResponseSchema = z
  .object({ results: z.array(embedResultSchema).meta({ description: 'One result per element, in the order sent' }) })
  .meta({ id: 'EmbedResolveResponse' });
export type EmbedResolveResponse = z.infer<typeof embedResolveResponseSchema>;

export const styleSchema = z
  .object({
    id: z.string().meta({ description: 'What is passed as `style`: a preset slug or the id of an own style', example: 'watercolor' }),
    name: z.string(),
    description: z.string().nullable(),
    tags: z.array(z.string()),
    isPreset: z.boolean().meta({ description: "true for service presets, false for the account's own" }),
  })
  .meta({ id: 'Style' });
export type Style = z.infer<typeof styleSchema>;

export const stylesResponseSchema = z
  .object({ styles: z.array(styleSchema).meta({ description: "The account's own styles first, then the presets its plan allows" }) })
  .meta({ id: 'StylesResponse' });

export const styleCategories = ['photo', 'illustration', 'artistic', 'technical', 'fantasy', 'general'] as const;
export const styleTiers = ['free', 'starter', 'pro', 'business'] as const;

export const publicStyleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    tags: z.array(z.string()),
    category: z.enum(styleCategories),
    tier: z.enum(styleTiers).meta({ description: 'Plan needed' }),
    previewUrl: z.url().nullable().meta({ description: 'Sample image URL; null when the style has no sample' }),
  })
  .meta({ id: 'PublicStyle' });
export type PublicStyle = z.infer<typeof publicStyleSchema>;

export const publicStylesResponseSchema = z
  .object({ styles: z.array(publicStyleSchema), count: z.int().min(0).meta({ example: 28 }) })
  .meta({ id: 'PublicStylesResponse' });

export const characterSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    referenceCount: z.int().min(0).meta({ description: "Number of the character's original source images", example: 3 }),
  })
  .meta({ id: 'Character' });
export type Character = z.infer<typeof characterSchema>;

export const charactersResponseSchema = z.object({ characters: z.array(characterSchema) }).meta({ id: 'CharactersResponse' });

export const pinResultSchema = z.object({ id: z.string(), pinned: z.boolean() }).meta({ id: 'PinResult' });
export type PinResult = z.infer<typeof pinResultSchema>;
export const rejectResultSchema = z.object({ id: z.string(), rejected: z.literal(true) }).meta({ id: 'RejectResult' });
export type RejectResult = z.infer<typeof rejectResultSchema>;

export const analyticsAcceptedSchema = z
  .object({ accepted: z.int().min(1).meta({ description: 'The number of events in the request (received, not necessarily stored)', example: 2 }) })
  .meta({ id: 'AnalyticsAccepted' });
export type AnalyticsAccepted = z.infer<typeof analyticsAcceptedSchema>;

export const healthSchema = z.object({ status: z.literal('ok'), service: z.string(), timestamp: isoTimestamp }).meta({ id: 'Health' });
export type Health = z.infer<typeof healthSchema>;

/* ---------- Error bodies (spec, "Errors") ---------- */

export const errorBodySchema = z
  .looseObject({ error: z.string().meta({ description: 'Says what went wrong' }) })
  .meta({ id: 'Error', description: 'Every 4xx and 5xx body carries `error`; some carry more fields.', example: { error: 'Service unavailable' } });

export const invalidRequestBodySchema = z
  .object({
    error: z.enum([ErrorMessages.invalidRequest, ErrorMessages.invalidJson]),
    details: z
      .object({
        formErrors: z.array(z.string()),
        fieldErrors: z
          .record(z.string(), z.array(z.string()))
          .meta({ description: 'Messages by field name', example: { width: ['Must be a multiple of 64'] } }),
      })
      .optional()
      .meta({ description: 'Absent for "Invalid JSON"' }),
  })
  .meta({ id: 'InvalidRequestError' });

export const accountRefusedBodySchema = z
  .object({
    error: z.string().meta({
      description: `One of "${ErrorMessages.pendingApproval}", "${ErrorMessages.suspended}", "${ErrorMessages.banned}", "${ErrorMessages.publishableForbidden}", "${ErrorMessages.originNotAllowed}"`,
    }),
    code: z.literal('pending_approval').optional().meta({ description: 'The only error code to branch on; retrying does not help' }),
  })
  .meta({ id: 'ForbiddenError' });

export const quotaExceededBodySchema = z
  .object({
    error: z.literal(ErrorMessages.quotaExceeded),
    used: z.int().min(0).meta({ example: 100 }),
    limit: z.int().min(0).meta({ example: 100 }),
    resetAt: isoTimestamp,
  })
  .meta({ id: 'QuotaExceededError' });

export const rateLimitedBodySchema = z
  .object({
    error: z
      .enum([ErrorMessages.rateLimited, ErrorMessages.tooManyActiveJobs])
      .meta({ description: `"${ErrorMessages.tooManyActiveJobs}" when the key's cap on jobs queued or running is reached (an extension)` }),
    retryAfterMs: z.int().min(0).meta({ description: 'Back off this long before the next call', example: 42000 }),
  })
  .meta({ id: 'RateLimitError' });

export const stillGeneratingBodySchema = z
  .object({ error: z.string(), jobId: z.string().meta({ description: 'Poll this job, or retry the render URL after Retry-After' }) })
  .meta({ id: 'StillGeneratingError' });
