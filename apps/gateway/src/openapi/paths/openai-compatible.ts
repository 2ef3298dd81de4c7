import type { ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { z } from 'zod';
import { openAiErrorBodySchema } from '../../http/openai-errors';
import { openAiImageRequestSchema, openAiImagesResponseSchema } from '../../http/routes/openai-images';
import { openAiModelListSchema, openAiModelSchema } from '../../http/routes/openai-models';
import { auth, json, optionalHeaders, quotaHeaders, rateLimitHeaders, retryAfter } from '../shared';

/** DECISIONS, "OpenAI-compatible surface": OpenAI's Images API at /v1 (base URL for OpenAI clients: `<host>/v1`). */

const envelope = (description: string, headers?: ZodOpenApiResponseObject['headers']) => json(openAiErrorBodySchema, description, headers);
// The rate limit runs before the body is read: what follows it carries X-RateLimit-*, what precedes it (a refused key) does not.
const afterLimit = optionalHeaders(rateLimitHeaders);

const UNAVAILABLE = 'A dependency is unavailable, or the image was not ready within RENDER_WAIT_MS; retry after Retry-After';
const FORBIDDEN = 'A publishable key, or an account not approved (`code: "pending_approval"`), suspended or banned: PermissionDeniedError';

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
