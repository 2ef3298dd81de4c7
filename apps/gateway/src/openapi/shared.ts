import type { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import {
  accountRefusedBodySchema,
  ErrorMessages,
  errorBodySchema,
  invalidRequestBodySchema,
  quotaExceededBodySchema,
  rateLimitedBodySchema,
} from '@promptpix/contracts';

/** Building blocks shared by the path descriptions: auth, headers and the common error answers. */

/** Who may call an operation (interface spec, Authentication). */
type Security = Array<Record<string, string[]>>;
export const auth: Record<'secret' | 'either' | 'none' | 'admin', Security> = {
  secret: [{ secretKey: [] }, { keyQuery: [] }],
  either: [{ secretKey: [] }, { publishableKey: [] }, { keyQuery: [] }],
  none: [],
  admin: [{ adminToken: [] }],
};

export const securitySchemes = {
  secretKey: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer sk_live_...`. A secret key reaches every endpoint; keep it on servers.' },
  publishableKey: {
    type: 'http',
    scheme: 'bearer',
    description: '`Authorization: Bearer pk_live_...`. A publishable key may be used from a browser; it reaches only job, styles, embed resolve and analytics.',
  },
  keyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'key',
    description: 'The key as a `key` query parameter, where a header is impossible (URLs opened in a browser or e-mail).',
  },
  adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (`ADMIN_TOKEN`).' },
  metricsToken: { type: 'http', scheme: 'bearer', description: '`METRICS_TOKEN`, when the operator set one.' },
} as const;

const intHeader = (description: string) => ({ description, required: true, schema: { type: 'integer' as const, minimum: 0 } });

export const quotaHeaders = {
  'X-Quota-Used': intHeader('Generations used in the current monthly window'),
  'X-Quota-Limit': intHeader('Generations included per monthly window'),
  'X-Quota-Reset': { description: 'When the window resets (ISO 8601)', required: true, schema: { type: 'string' as const, format: 'date-time' } },
};

/** The same headers where they may be absent (a dependency could not be read). */
export const optionalHeaders = <H extends Record<string, { required: boolean }>>(headers: H): H =>
  Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, { ...header, required: false }])) as H;

export const rateLimitHeaders = {
  'X-RateLimit-Limit': intHeader("Requests per minute of the key's plan"),
  'X-RateLimit-Remaining': intHeader('Requests left in the sliding one-minute window'),
};

export const retryAfter = { 'Retry-After': intHeader('Seconds to wait before retrying') };

export const replayedHeader = {
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key and body',
    required: false,
    schema: { type: 'string' as const, enum: ['true'] },
  },
};

export const locationHeader = { Location: { description: 'Where the image file is', required: true, schema: { type: 'string' as const, format: 'uri' } } };

export const json = (schema: z.ZodType, description: string, headers?: ZodOpenApiResponseObject['headers']): ZodOpenApiResponseObject => ({
  description,
  content: { 'application/json': { schema } },
  ...(headers ? { headers } : {}),
});

export const redirect = (description: string): ZodOpenApiResponseObject => ({ description, headers: locationHeader });

const error = (message: string) => errorBodySchema.meta({ example: { error: message } });

/** The error answers operations share, registered once under components.responses. */
export const errors = {
  badRequest: {
    ...json(invalidRequestBodySchema, 'Bad input: `details.fieldErrors` names each field, or "Invalid JSON" for a body that is not JSON'),
    id: 'BadRequest',
  },
  unauthorized: { ...json(error(ErrorMessages.missingKey), 'Missing API key, or Invalid API key'), id: 'Unauthorized' },
  forbidden: {
    ...json(
      accountRefusedBodySchema,
      'Account not approved (`code: "pending_approval"`), suspended or banned; a publishable key on a secret-only endpoint; or an origin not on the key\'s domain list',
    ),
    id: 'Forbidden',
  },
  quotaExceeded: { ...json(quotaExceededBodySchema, 'Out of generations for this monthly window', quotaHeaders), id: 'QuotaExceeded' },
  rateLimited: {
    ...json(
      rateLimitedBodySchema,
      "Over the per-minute rate limit (per key; for publishable keys also per client IP when PUBLISHABLE_IP_RATE_LIMIT is set), or, where a job would start, over the key's cap on jobs in progress; back off for `retryAfterMs`",
      { ...rateLimitHeaders, ...retryAfter },
    ),
    id: 'RateLimited',
  },
  tooLarge: { ...json(error(ErrorMessages.payloadTooLarge), 'The JSON body is over 1 MiB'), id: 'PayloadTooLarge' },
  internal: { ...json(error(ErrorMessages.internal), 'Service fault; retry'), id: 'InternalError' },
  unavailable: { ...json(errorBodySchema, 'A dependency is unavailable; retry after Retry-After', retryAfter), id: 'ServiceUnavailable' },
} satisfies Record<string, ZodOpenApiResponseObject>;

export const notFound = (message: string, description = message, headers?: ZodOpenApiResponseObject['headers']) => json(error(message), description, headers);

/** Every keyed operation can answer these. */
export const keyedErrors = { '401': errors.unauthorized, '403': errors.forbidden, '500': errors.internal, '503': errors.unavailable };

/** A response with more headers; a shared answer (a component) is copied inline, so the component keeps its own. */
export function withHeaders(response: ZodOpenApiResponseObject, headers: NonNullable<ZodOpenApiResponseObject['headers']>): ZodOpenApiResponseObject {
  const { id: _component, ...inline } = response as ZodOpenApiResponseObject & { id?: string };
  return { ...inline, headers: { ...inline.headers, ...headers } };
}

/*
 * Rate limiting runs after authentication and before validation (http/middleware/rate-limit.ts),
 * so every answer of a rate-limited handler carries X-RateLimit-*. A status that can also come
 * from earlier (unparsable JSON, a refused key, a dependency outage) carries them only sometimes.
 */
export const withRateLimitHeaders = (response: ZodOpenApiResponseObject) => withHeaders(response, rateLimitHeaders);
export const withOptionalRateLimitHeaders = (response: ZodOpenApiResponseObject) => withHeaders(response, optionalHeaders(rateLimitHeaders));

/** keyedErrors of a rate-limited operation: a 500 or 503 from the handler comes after the rate limit. */
export const rateLimitedKeyedErrors = {
  ...keyedErrors,
  '500': withOptionalRateLimitHeaders(errors.internal),
  '503': withOptionalRateLimitHeaders(errors.unavailable),
};

/** The 403 of an operation that checks the style against the plan after the rate limit (generate, render). */
export const forbiddenOrStyleAbovePlan = withOptionalRateLimitHeaders({
  ...errors.forbidden,
  description: `${errors.forbidden.description}; or a style above the account's plan (after the rate limit, so with X-RateLimit-*)`,
});
