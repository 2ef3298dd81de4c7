import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  analyticsAcceptedSchema,
  analyticsBodySchema,
  charactersResponseSchema,
  embedResolveBodySchema,
  embedResolveResponseSchema,
  ErrorMessages,
  errorBodySchema,
  generateAcceptedSchema,
  generateBodySchema,
  healthSchema,
  instantResultSchema,
  jobSchema,
  pinResultSchema,
  publicStylesResponseSchema,
  rejectResultSchema,
  renderQuerySchema,
  stillGeneratingBodySchema,
  stylesResponseSchema,
} from '@promptpix/contracts';
import { CANCEL_AFTER_SECONDS, IDEMPOTENCY_KEY_PATTERN, NO_CLOSE_MATCH } from '@promptpix/core';
import { IdempotencyMessages } from '../../http/idempotency';
import { JOB_FINISHED } from '../../http/routes/job-cancel';
import {
  auth,
  errors,
  forbiddenOrStyleAbovePlan,
  json,
  keyedErrors,
  locationHeader,
  notFound,
  optionalHeaders,
  quotaHeaders,
  rateLimitedKeyedErrors,
  rateLimitHeaders,
  redirect,
  replayedHeader,
  retryAfter,
  withOptionalRateLimitHeaders,
  withRateLimitHeaders,
} from '../shared';

/** The endpoints of the interface spec, described from the schemas the handlers validate with. */

const imageId = z.object({ id: z.string().meta({ description: 'An imageId' }) });
const jsonBody = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });

const flag = (summary: string, description: string, result: z.ZodType) => ({
  tags: ['Images'],
  summary,
  description,
  security: auth.secret,
  requestParams: { path: imageId },
  responses: {
    '200': json(result, 'The new state of the flag'),
    ...keyedErrors,
    '404': notFound(ErrorMessages.imageNotFound, 'Unknown, or not owned by the caller (never 403)'),
    '500': json(z.object({ error: z.string() }), 'The write failed; retry'),
  },
});

export const publicApiPaths: ZodOpenApiPathsObject = {
  '/api/v1/generate': {
    post: {
      tags: ['Generation'],
      operationId: 'generate',
      summary: 'Start a generation, or get the closest library image at once (instant mode)',
      description:
        'Generate mode answers 202 with a job to poll every second or two; a generation usually takes ten to fifteen seconds. ' +
        'A prompt and style already generated for the account is a cache hit: the job completes at once and costs no quota. ' +
        'Instant mode answers 200 with the closest shared-library image; it never starts a job and is free on every plan. ' +
        "Extensions: a prompt the safety filter blocks is a 400 naming `prompt` (stricter for `ageBuckets` kids and bigkids); `seed`, `negativePrompt` and `webhookUrl` in the body; `Idempotency-Key` and `Cancel-After` headers; over the key's cap on jobs in progress, a 429.",
      security: auth.secret,
      requestParams: {
        header: z.object({
          // The bounds are the parsers' own (core: parseCancelAfter, parseIdempotencyKey).
          'Cancel-After': z.int().min(CANCEL_AFTER_SECONDS.min).max(CANCEL_AFTER_SECONDS.max).optional().meta({
            description:
              'Extension. Whole seconds: a job this request starts that has not finished by then is cancelled (failed, "cancelled", quota refunded).',
          }),
          'Idempotency-Key': z.string().regex(IDEMPOTENCY_KEY_PATTERN).optional().meta({
            description:
              'Extension. 1 to 255 visible ASCII characters (a UUID is typical). A retry with the same key and body gets the first answer again for 24 hours (with `Idempotent-Replayed: true`); the same key with another body is a 409. Scoped to the account; error answers are not kept.',
          }),
        }),
      },
      requestBody: jsonBody(generateBodySchema),
      responses: {
        ...rateLimitedKeyedErrors,
        '202': json(generateAcceptedSchema, 'Generate mode: the job was queued', { ...quotaHeaders, ...rateLimitHeaders, ...replayedHeader }),
        '409': json(
          errorBodySchema.meta({ example: { error: IdempotencyMessages.mismatch } }),
          `Idempotency-Key reused with another body ("${IdempotencyMessages.mismatch}"), or the same request still in progress ("${IdempotencyMessages.inProgress}", with Retry-After)`,
          { ...rateLimitHeaders, ...optionalHeaders(retryAfter) },
        ),
        '200': json(instantResultSchema, 'Instant mode: the closest library image', { ...rateLimitHeaders, ...replayedHeader }),
        '400': withOptionalRateLimitHeaders(errors.badRequest),
        '402': withRateLimitHeaders(errors.quotaExceeded),
        '403': forbiddenOrStyleAbovePlan,
        '404': notFound(NO_CLOSE_MATCH, 'Instant mode found nothing close enough', rateLimitHeaders),
        '413': errors.tooLarge,
        '429': errors.rateLimited,
      },
    },
  },
  '/api/v1/job/{jobId}': {
    get: {
      tags: ['Generation'],
      operationId: 'getJob',
      summary: 'Job status',
      description: 'Not rate limited. `Cache-Control: no-cache` while in flight, one minute once completed or failed. A job lives one hour.',
      security: auth.either,
      requestParams: { path: z.object({ jobId: z.string() }) },
      responses: {
        '200': json(jobSchema, 'The job; fields appear only once they have a value'),
        ...keyedErrors,
        '404': notFound(ErrorMessages.jobNotFound, 'Unknown, expired, or belonging to another account'),
      },
    },
    delete: {
      tags: ['Generation'],
      operationId: 'cancelJob',
      summary: 'Cancel a queued or running job (extension)',
      description:
        'A queued job leaves the queue; a running one is stopped. It reads `failed` with `error: "cancelled"` from then on and its quota unit is refunded. Cancelling again answers the same. A generation joined by identical requests is cancelled for all of them.',
      security: auth.secret,
      requestParams: { path: z.object({ jobId: z.string() }) },
      responses: {
        '200': json(jobSchema, 'The job, now failed with error "cancelled"'),
        ...keyedErrors,
        '404': notFound(ErrorMessages.jobNotFound, 'Unknown, expired, or belonging to another account'),
        '409': json(z.object({ error: z.literal(JOB_FINISHED), job: jobSchema }), 'The job had already completed or failed'),
      },
    },
  },
  '/api/v1/render': {
    get: {
      tags: ['Generation'],
      operationId: 'render',
      summary: 'A URL that returns an image',
      description:
        'An existing image of this prompt and style redirects at once. Otherwise the request starts (or joins) the generation and is held until it completes, ' +
        'up to `RENDER_WAIT_MS` (30 s by default), then redirects; still running, it answers 503 with `Retry-After` and the `jobId`. ' +
        'Out of quota, it redirects to an existing image of the exact prompt (any style) before failing with 402. The URL carries the secret key: use it only where the URL stays private.',
      security: auth.secret,
      requestParams: { query: renderQuerySchema },
      responses: {
        ...rateLimitedKeyedErrors,
        '302': {
          ...redirect('The image file (`Cache-Control: private, max-age=60`), with the quota headers (on a cache hit too, unchanged by it)'),
          headers: { ...locationHeader, ...optionalHeaders(quotaHeaders), ...rateLimitHeaders },
        },
        '400': withOptionalRateLimitHeaders(errors.badRequest),
        '402': withRateLimitHeaders(errors.quotaExceeded),
        '403': forbiddenOrStyleAbovePlan,
        '429': errors.rateLimited,
        '502': json(stillGeneratingBodySchema, 'The generation failed at the model; retry', { ...rateLimitHeaders, ...quotaHeaders }),
        '503': json(
          z.union([stillGeneratingBodySchema, errorBodySchema]),
          'Still generating after RENDER_WAIT_MS (with the `jobId` and the rate-limit and quota headers): retry after Retry-After, or poll the job. ' +
            'Or a dependency is unavailable (no `jobId`)',
          { ...retryAfter, ...optionalHeaders({ ...rateLimitHeaders, ...quotaHeaders }) },
        ),
      },
    },
  },
  '/api/v1/image/{id}': {
    get: {
      tags: ['Images'],
      operationId: 'getImage',
      summary: 'Redirect to an owned image',
      description:
        'The address is stable and does not expire; the redirect is cacheable for a day. With `jobId` (a job still held), the answer comes from the job store.',
      security: auth.secret,
      requestParams: { path: imageId, query: z.object({ jobId: z.string().optional().meta({ description: 'The job that made the image' }) }) },
      responses: {
        '302': redirect('The image file'),
        ...keyedErrors,
        '404': notFound(ErrorMessages.imageNotFound, 'Unknown, or not owned by the caller'),
      },
    },
  },
  '/api/v1/image/{id}/pin': {
    patch: {
      ...flag('Pin an image', 'Clears a rejection; a permalink serves its pinned image from then on.', pinResultSchema),
      operationId: 'pinImage',
    },
    delete: {
      ...flag('Unpin an image', 'Its permalink goes back to rotating through its other images.', pinResultSchema),
      operationId: 'unpinImage',
    },
  },
  '/api/v1/image/{id}/reject': {
    patch: {
      ...flag(
        'Reject an image',
        'Unpins it, unhooks it from its permalink, drops it from the render cache and marks embedded prompts pointing at it for regeneration. The image is not deleted.',
        rejectResultSchema,
      ),
      operationId: 'rejectImage',
    },
  },
  '/api/v1/styles': {
    get: {
      tags: ['Styles and characters'],
      operationId: 'listStyles',
      summary: 'Styles this account may use',
      description: "The account's own styles first, then the presets its plan allows. Fresh for an hour, stale copies usable for a day.",
      security: auth.either,
      responses: { '200': json(stylesResponseSchema, 'The styles'), ...keyedErrors },
    },
  },
  '/api/v1/styles/public': {
    get: {
      tags: ['Styles and characters'],
      operationId: 'listPublicStyles',
      summary: 'Every preset, with category, tier and preview',
      security: auth.none,
      responses: { '200': json(publicStylesResponseSchema, 'The presets') },
    },
  },
  '/api/v1/characters': {
    get: {
      tags: ['Styles and characters'],
      operationId: 'listCharacters',
      summary: "The account's characters",
      description: 'Reference images are never returned. Fresh for five minutes, stale copies usable for an hour.',
      security: auth.secret,
      responses: {
        '200': json(charactersResponseSchema, 'The characters'),
        ...keyedErrors,
        '500': json(z.object({ error: z.literal('Failed to fetch characters') }), 'The list could not be read; retry'),
      },
    },
  },
  '/api/v1/embed/resolve': {
    post: {
      tags: ['Embed and analytics'],
      operationId: 'embedResolve',
      summary: 'Resolve many images in one call',
      description:
        'Each element is a shortcut (a permalink: never generates), a prompt in generate mode (ready when an image exists, else a job) or a prompt in instant mode. ' +
        'One failing element never fails the batch; an element over the quota comes back failed.',
      security: auth.either,
      requestBody: jsonBody(embedResolveBodySchema),
      responses: {
        ...rateLimitedKeyedErrors,
        '200': json(embedResolveResponseSchema, 'One result per element, in the order sent', rateLimitHeaders),
        '400': withOptionalRateLimitHeaders(errors.badRequest),
        '413': errors.tooLarge,
        '429': errors.rateLimited,
      },
    },
  },
  '/api/v1/analytics/events': {
    post: {
      tags: ['Embed and analytics'],
      operationId: 'recordEvents',
      summary: 'Record impression and click events',
      description: '202 means received, not stored: when the analytics store fails, the batch is dropped. A 429 means drop the batch.',
      security: auth.either,
      requestBody: jsonBody(analyticsBodySchema),
      responses: {
        ...rateLimitedKeyedErrors,
        '202': json(analyticsAcceptedSchema, 'Received', rateLimitHeaders),
        '400': withOptionalRateLimitHeaders(errors.badRequest),
        '413': errors.tooLarge,
        '429': errors.rateLimited,
      },
    },
  },
  '/api/img/{handle}/{name}': {
    get: {
      tags: ['Images'],
      operationId: 'permalink',
      summary: 'Permanent URL of a named image',
      description:
        "No key. Serves the permalink's pinned image, otherwise rotates through its images (`Cache-Control: no-cache`). The Referer is checked against the domain lists of the account's publishable keys.",
      security: auth.none,
      requestParams: {
        path: z.object({ handle: z.string().meta({ description: "The account's handle" }), name: z.string().meta({ description: 'The permalink name' }) }),
      },
      responses: {
        '302': redirect('The image file'),
        '403': json(z.object({ error: z.literal(ErrorMessages.originNotAllowed) }), "The Referer is not on the account's domain lists"),
        '404': notFound(ErrorMessages.imageNotFound, 'Unknown permalink, or one with no image'),
      },
    },
  },
  '/api/health': {
    get: {
      tags: ['Service'],
      operationId: 'health',
      summary: 'Liveness',
      security: auth.none,
      responses: { '200': json(healthSchema, 'The process is up') },
    },
  },
};
