import type { ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { z } from 'zod';
import { IMAGE_INPUT_LIMITS, MAX_EDIT_IMAGES } from '@promptpix/contracts';
import { openAiErrorBodySchema } from '../../http/openai-errors';
import { openAiImagesResponseSchema } from '../../http/openai-takes';
import { openAiImageEditRequestSchema } from '../../http/routes/openai-image-edits';
import { openAiImageRequestSchema } from '../../http/routes/openai-images';
import { UploadSlotMessages } from '../../http/upload-slots';
import { openAiModelListSchema, openAiModelSchema } from '../../http/routes/openai-models';
import { auth, json, optionalHeaders, quotaHeaders, rateLimitHeaders, retryAfter } from '../shared';

/** DECISIONS, "OpenAI-compatible surface": OpenAI's Images API at /v1 (base URL for OpenAI clients: `<host>/v1`). */

const envelope = (description: string, headers?: ZodOpenApiResponseObject['headers']) => json(openAiErrorBodySchema, description, headers);
// The rate limit runs before the body is read: what follows it carries X-RateLimit-*, what precedes it (a refused key) does not.
const afterLimit = optionalHeaders(rateLimitHeaders);

const UNAVAILABLE = 'A dependency is unavailable, or the image was not ready within RENDER_WAIT_MS; retry after Retry-After';
const FORBIDDEN = 'A publishable key, or an account not approved (`code: "pending_approval"`), suspended or banned: PermissionDeniedError';

const binary = (description: string) => z.string().meta({ format: 'binary', description });

const keyed = {
  '401': envelope('Missing or invalid key (`code` missing_api_key or invalid_api_key): the SDKs raise AuthenticationError'),
  '403': envelope(FORBIDDEN),
  '500': envelope('Service fault; retry', afterLimit),
  '503': envelope(UNAVAILABLE, { ...afterLimit, ...retryAfter }),
};

export const openAiCompatiblePaths: ZodOpenApiPathsObject = {
  '/v1/images/generations': {
    post: {
      tags: ['OpenAI-compatible'],
      operationId: 'openAiCreateImage',
      summary: "Generate images with OpenAI's Images API request and answer",
      description:
        'Point an OpenAI client at `<host>/v1` with a secret key. The same generation service as POST /api/v1/generate (cache, single flight, quota, safety, styles, characters), answered once the images exist (bounded by RENDER_WAIT_MS). The body is read only after the key is checked, up to 32 kB.',
      security: auth.secret,
      requestBody: { content: { 'application/json': { schema: openAiImageRequestSchema } } },
      responses: {
        '200': json(openAiImagesResponseSchema, 'The images, one per take', { ...quotaHeaders, ...rateLimitHeaders }),
        '400': envelope('Bad input; `param` names the field (BadRequestError)', afterLimit),
        ...keyed,
        '403': envelope(`${FORBIDDEN}; or a style above the account's plan`, afterLimit),
        '413': envelope('The body is over 32 kB', afterLimit),
        '429': envelope(
          'Over the per-minute rate limit (`type: "requests"`, `code: "rate_limit_exceeded"`), or out of generations (`code: "insufficient_quota"`, with the quota headers, Retry-After at the reset and `x-should-retry: false`): RateLimitError',
          { ...rateLimitHeaders, ...retryAfter, ...optionalHeaders(quotaHeaders) },
        ),
        // The quota headers are set once the takes have started, before the wait.
        '502': envelope('The generation failed at the model; retry', { ...afterLimit, ...optionalHeaders(quotaHeaders) }),
        '503': envelope(UNAVAILABLE, { ...afterLimit, ...retryAfter, ...optionalHeaders(quotaHeaders) }),
      },
    },
  },
  '/v1/images/edits': {
    post: {
      tags: ['OpenAI-compatible'],
      operationId: 'openAiEditImage',
      summary: "Edit images with OpenAI's Images API request (multipart) and answer",
      description:
        `OpenAI's image edits as its clients send them (\`images.edit\` with \`toFile\` uploads): the image under \`image\` (up to ${MAX_EDIT_IMAGES} under \`image[]\`: the first is edited, the rest are references, where the model takes them) and an optional \`mask\` (a PNG with alpha the size of the first image: transparent where it may change). ` +
        `Each file (PNG, JPEG or WebP, at most ${IMAGE_INPUT_LIMITS.maxBytes / (1024 * 1024)} MiB and ${IMAGE_INPUT_LIMITS.maxSide}×${IMAGE_INPUT_LIMITS.maxSide} pixels) is sanitised and stored as one of the account's uploads (counted against UPLOAD_BYTES_PER_ACCOUNT, expiring UPLOAD_TTL_HOURS after its last use), then the edit runs through the same generation service as POST /v1/images/generations and is answered the same way. ` +
        'The body is read only after the key, the rate limit and an upload slot.',
      security: auth.secret,
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: openAiImageEditRequestSchema.extend({
              image: binary('The image to edit (one file)').optional(),
              'image[]': z
                .array(binary('An image'))
                .max(MAX_EDIT_IMAGES)
                .optional()
                .meta({ description: `Several images, the edited one first (at most ${MAX_EDIT_IMAGES} with \`image\`)` }),
              mask: binary('A PNG with alpha, the size of the first image: transparent (alpha 0) where it may change').optional(),
            }),
          },
        },
      },
      responses: {
        '200': json(openAiImagesResponseSchema, 'The edited images, one per take', { ...quotaHeaders, ...rateLimitHeaders }),
        '400': envelope(
          'Bad input; `param` names the field: `image` (no image, not an image, too many, or the model cannot edit), `mask` (not an image, no alpha, another size than the image, or the model takes no mask), or a text field (BadRequestError)',
          afterLimit,
        ),
        ...keyed,
        '403': envelope(`${FORBIDDEN}; or a style above the account's plan`, afterLimit),
        '409': envelope('The files would pass the account\'s upload budget (`code: "upload_budget_exceeded"`)', afterLimit),
        '413': envelope(`A file is over ${IMAGE_INPUT_LIMITS.maxBytes / (1024 * 1024)} MiB (\`param\` names its field)`, afterLimit),
        '415': envelope('Not a multipart/form-data body', afterLimit),
        '429': envelope(
          `Over the per-minute rate limit or "${UploadSlotMessages.account}" (\`code: "rate_limit_exceeded"\`), or out of generations (\`code: "insufficient_quota"\`): RateLimitError`,
          { ...rateLimitHeaders, ...retryAfter, ...optionalHeaders(quotaHeaders) },
        ),
        '502': envelope('The edit failed at the model; retry', { ...afterLimit, ...optionalHeaders(quotaHeaders) }),
        '503': envelope(`${UNAVAILABLE}; or "${UploadSlotMessages.busy}"`, { ...afterLimit, ...retryAfter, ...optionalHeaders(quotaHeaders) }),
      },
    },
  },
  '/v1/models': {
    get: {
      tags: ['OpenAI-compatible'],
      operationId: 'openAiListModels',
      summary: 'The models this service generates with',
      security: auth.secret,
      responses: { '200': json(openAiModelListSchema, "OpenAI's list shape"), ...keyed },
    },
  },
  '/v1/models/{id}': {
    get: {
      tags: ['OpenAI-compatible'],
      operationId: 'openAiRetrieveModel',
      summary: 'One model',
      security: auth.secret,
      requestParams: { path: z.object({ id: z.string().meta({ description: 'A model id from GET /v1/models' }) }) },
      responses: { '200': json(openAiModelSchema, "OpenAI's model shape"), '404': envelope('No such model (`code: "model_not_found"`)'), ...keyed },
    },
  },
};
