import type { ErrorRequestHandler, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import type { Logger } from '@promptpix/runtime';
import { STATUS_OF, toAppError } from './middleware/error-handler';

/** OpenAI's error envelope, which its SDKs read `message`, `type`, `param` and `code` from. */
export const openAiErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().meta({ description: 'invalid_request_error, requests (rate limit), insufficient_quota or server_error' }),
    param: z.string().nullable().meta({ description: 'The request field at fault, on a 400' }),
    code: z
      .string()
      .nullable()
      .meta({ description: 'invalid_api_key, missing_api_key, rate_limit_exceeded, insufficient_quota, model_not_found, pending_approval, or null' }),
  }),
});
export type OpenAiErrorBody = z.infer<typeof openAiErrorBodySchema>;

export interface OpenAiErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: OpenAiErrorBody;
}

/** The first field a 400's `details.fieldErrors` names, and its first message. */
function firstFieldError(error: AppError): { param: string; message: string } | null {
  const fieldErrors = (error.body.details as { fieldErrors?: Record<string, string[] | undefined> } | undefined)?.fieldErrors ?? {};
  const [param, messages] = Object.entries(fieldErrors).find(([, m]) => m && m.length > 0) ?? [];
  return param && messages ? { param, message: messages[0] } : null;
}

const formError = (error: AppError): string | undefined => (error.body.details as { formErrors?: string[] } | undefined)?.formErrors?.[0];

const secondsUntil = (iso: unknown, now: Date): number => Math.max(1, Math.ceil((Date.parse(String(iso)) - now.getTime()) / 1000));

/**
 * An error of the service in OpenAI's envelope, with the statuses OpenAI's SDKs map to their error
 * classes (DECISIONS, "OpenAI-compatible surface"). Out of generations is a 429 with `code:
 * "insufficient_quota"` (the native API's 402), Retry-After at the quota's reset and
 * `x-should-retry: false` so the SDKs do not retry it; the per-minute limit is a 429 with `code:
 * "rate_limit_exceeded"`. A 400 names the field in `param`.
 */
export function toOpenAiError(error: AppError, now: Date): OpenAiErrorAnswer {
  const envelope = (type: string, message: string, param: string | null, code: string | null): OpenAiErrorBody => ({ error: { message, type, param, code } });
  const ownCode = typeof error.body.code === 'string' ? error.body.code : null;
  const status = STATUS_OF[error.kind];
  switch (error.kind) {
    case 'invalid_request': {
      const field = firstFieldError(error);
      if (field)
        return {
          status,
          headers: error.headers,
          body: envelope('invalid_request_error', `${error.message}: ${field.param}: ${field.message}`, field.param, ownCode),
        };
      const form = formError(error);
      return { status, headers: error.headers, body: envelope('invalid_request_error', form ? `${error.message}: ${form}` : error.message, null, ownCode) };
    }
    case 'unauthorized':
      return {
        status,
        headers: error.headers,
        body: envelope('invalid_request_error', error.message, null, error.message === ErrorMessages.missingKey ? 'missing_api_key' : 'invalid_api_key'),
      };
    case 'quota_exceeded': {
      const { used, limit, resetAt } = error.body;
      const message = `${error.message}: ${used} of ${limit} generations used; the quota resets at ${resetAt}`;
      const headers = { ...error.headers, 'Retry-After': String(secondsUntil(resetAt, now)), 'x-should-retry': 'false' };
      return { status: 429, headers, body: envelope('insufficient_quota', message, null, 'insufficient_quota') };
    }
    case 'rate_limited':
      return { status, headers: error.headers, body: envelope('requests', error.message, null, 'rate_limit_exceeded') };
    case 'unavailable':
    case 'upstream_failed':
    case 'internal':
      return { status, headers: error.headers, body: envelope('server_error', error.message, null, ownCode) };
    default:
      return { status, headers: error.headers, body: envelope('invalid_request_error', error.message, null, ownCode) };
  }
}

/**
 * Mounted at /v1 after the OpenAI-compatible routes: an unknown path is a 404, and every error of
 * the surface is the native handler's translation, answered in OpenAI's envelope.
 */
export const openAiErrors = (logger: Logger, now: () => Date): [RequestHandler, ErrorRequestHandler] => [
  (_req, _res, next) => next(new AppError('not_found', ErrorMessages.notFound)),
  (error, _req, res, _next) => {
    const answer = toOpenAiError(toAppError(error, logger), now());
    if (res.headersSent) return res.end();
    res.status(answer.status).set(answer.headers).json(answer.body);
  },
];
