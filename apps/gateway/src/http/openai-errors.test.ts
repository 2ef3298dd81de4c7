import OpenAI from 'openai';
import { AppError, fieldError, quotaExceededError } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import { rateLimitedError } from './middleware/rate-limit';
import { toOpenAiError } from './openai-errors';
import { publishedErrorResponse } from './routes/openai-published';

const now = new Date('2026-11-24T12:00:00Z');

/** The error class OpenAI's SDK raises for an answer, by its own mapping. */
const sdkClassOf = (status: number, body: unknown, headers: Record<string, string>) =>
  OpenAI.APIError.generate(status, body as object, undefined, new Headers(headers)).constructor.name;

describe("toOpenAiError: the service's errors in OpenAI's envelope", () => {
  it.each([
    {
      name: 'a field error',
      error: fieldError('size', 'Must be a multiple of 64'),
      status: 400,
      type: 'invalid_request_error',
      param: 'size',
      code: null,
      sdk: 'BadRequestError',
    },
    {
      name: 'an unknown model',
      error: new AppError('invalid_request', 'Invalid request', {
        code: 'model_not_found',
        details: { formErrors: [], fieldErrors: { model: ['No such model'] } },
      }),
      status: 400,
      type: 'invalid_request_error',
      param: 'model',
      code: 'model_not_found',
      sdk: 'BadRequestError',
    },
    {
      name: 'unparsable JSON',
      error: new AppError('invalid_request', ErrorMessages.invalidJson),
      status: 400,
      type: 'invalid_request_error',
      param: null,
      code: null,
      sdk: 'BadRequestError',
    },
    {
      name: 'a missing key',
      error: new AppError('unauthorized', ErrorMessages.missingKey),
      status: 401,
      type: 'invalid_request_error',
      param: null,
      code: 'missing_api_key',
      sdk: 'AuthenticationError',
    },
    {
      name: 'an unknown key',
      error: new AppError('unauthorized', ErrorMessages.invalidKey),
      status: 401,
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_api_key',
      sdk: 'AuthenticationError',
    },
    {
      name: 'a publishable key',
      error: new AppError('forbidden', ErrorMessages.publishableForbidden),
      status: 403,
      type: 'invalid_request_error',
      param: null,
      code: null,
      sdk: 'PermissionDeniedError',
    },
    {
      name: 'an account pending approval',
      error: new AppError('forbidden', ErrorMessages.pendingApproval, { code: 'pending_approval' }),
      status: 403,
      type: 'invalid_request_error',
      param: null,
      code: 'pending_approval',
      sdk: 'PermissionDeniedError',
    },
    {
      name: 'an unknown model id',
      error: new AppError('not_found', 'No such model', { code: 'model_not_found' }),
      status: 404,
      type: 'invalid_request_error',
      param: null,
      code: 'model_not_found',
      sdk: 'NotFoundError',
    },
    {
      name: 'the per-minute limit',
      error: rateLimitedError(12_300),
      status: 429,
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
      sdk: 'RateLimitError',
    },
    {
      name: 'used-up quota',
      error: quotaExceededError({ used: 5, limit: 5, resetAt: new Date('2026-12-01T00:00:00Z') }),
      status: 429,
      type: 'insufficient_quota',
      param: null,
      code: 'insufficient_quota',
      sdk: 'RateLimitError',
    },
    {
      name: 'a failed generation',
      error: new AppError('upstream_failed', 'Model unavailable'),
      status: 502,
      type: 'server_error',
      param: null,
      code: null,
      sdk: 'InternalServerError',
    },
    {
      name: 'an image not ready in time',
      error: new AppError('unavailable', 'The image is still being generated; retry shortly', { jobId: 'j' }, { 'Retry-After': '5' }),
      status: 503,
      type: 'server_error',
      param: null,
      code: null,
      sdk: 'InternalServerError',
    },
    {
      name: 'a fault',
      error: new AppError('internal', ErrorMessages.internal),
      status: 500,
      type: 'server_error',
      param: null,
      code: null,
      sdk: 'InternalServerError',
    },
  ])('$name → $status $type ($sdk)', ({ error, status, type, param, code, sdk }) => {
    const answer = toOpenAiError(error, now);
    expect(publishedErrorResponse.parse(answer.body)).toEqual(answer.body);
    expect({ status: answer.status, type: answer.body.error.type, param: answer.body.error.param, code: answer.body.error.code }).toEqual({
      status,
      type,
      param,
      code,
    });
    expect(sdkClassOf(answer.status, answer.body, answer.headers)).toBe(sdk);
  });

  it('a 400 says which field and why', () => {
    expect(toOpenAiError(fieldError('size', 'Must be a multiple of 64'), now).body.error.message).toBe('Invalid request: size: Must be a multiple of 64');
  });

  it('used-up quota: Retry-After at the reset, the quota headers, and no SDK retry', () => {
    const answer = toOpenAiError(quotaExceededError({ used: 5, limit: 5, resetAt: new Date('2026-11-24T13:00:00Z') }), now);
    expect(answer.headers).toEqual({
      'X-Quota-Used': '5',
      'X-Quota-Limit': '5',
      'X-Quota-Reset': '2026-11-24T13:00:00.000Z',
      'Retry-After': '3600',
      'x-should-retry': 'false',
    });
    expect(answer.body.error.message).toBe('Generation quota exceeded: 5 of 5 generations used; the quota resets at 2026-11-24T13:00:00.000Z');
  });

  it('the per-minute limit keeps its Retry-After', () => {
    expect(toOpenAiError(rateLimitedError(12_300), now).headers).toEqual({ 'Retry-After': '13' });
  });
});
