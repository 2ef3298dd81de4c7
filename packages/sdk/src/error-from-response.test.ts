import {
  AuthenticationError,
  ConflictError,
  GenerationFailedError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PromptPixError,
  QuotaExceededError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from './errors';
import { errorFromResponse, parseErrorBody } from './error-from-response';

const none = new Headers();

describe('errorFromResponse chooses the class by status', () => {
  it.each([
    [400, { error: 'Invalid JSON' }, InvalidRequestError, 'InvalidRequestError'],
    [401, { error: 'Missing API key' }, AuthenticationError, 'AuthenticationError'],
    [402, { error: 'Generation quota exceeded', used: 1, limit: 1, resetAt: '2026-12-01T00:00:00.000Z' }, QuotaExceededError, 'QuotaExceededError'],
    [403, { error: 'Origin not allowed' }, PermissionError, 'PermissionError'],
    [404, { error: 'Job not found' }, NotFoundError, 'NotFoundError'],
    [409, { error: 'This Idempotency-Key was used with a different request body' }, ConflictError, 'ConflictError'],
    [429, { error: 'Rate limit exceeded', retryAfterMs: 1000 }, RateLimitError, 'RateLimitError'],
    [500, { error: 'Internal server error' }, ServerError, 'ServerError'],
    [502, { error: 'Image generation failed' }, ServerError, 'ServerError'],
    [503, null, ServerError, 'ServerError'],
    [413, { error: 'Request body too large' }, PromptPixError, 'PromptPixError'],
    [418, null, PromptPixError, 'PromptPixError'],
  ])('%i → %p', (status, body, type, name) => {
    const error = errorFromResponse(status, body, none);
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(PromptPixError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.status).toBe(status);
    expect(error.body).toEqual(body);
    expect(error.message).toBe(body?.error ?? `HTTP ${status}`);
  });
});

describe('fields of each error', () => {
  it('400: fieldErrors and formErrors from details, named in the message', () => {
    const error = errorFromResponse(
      400,
      { error: 'Invalid request', details: { formErrors: [], fieldErrors: { width: ['Must be a multiple of 64'], prompt: ['Required', 'Too short'] } } },
      none,
    );
    expect(error).toMatchObject({ fieldErrors: { width: ['Must be a multiple of 64'], prompt: ['Required', 'Too short'] }, formErrors: [] });
    expect(error.message).toBe('Invalid request: width: Must be a multiple of 64; prompt: Required, Too short');
  });

  it('413 naming a field (an image over the byte limit) is an InvalidRequestError too; a bare 413 stays a PromptPixError', () => {
    const error = errorFromResponse(413, { error: 'Invalid request', details: { formErrors: [], fieldErrors: { image: ['Image larger than 25 MiB'] } } }, none);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 413, fieldErrors: { image: ['Image larger than 25 MiB'] } });
    expect(error.message).toBe('Invalid request: image: Image larger than 25 MiB');
  });

  it.each([
    [{ error: 'Invalid JSON' }, {}, []],
    [{ error: 'Invalid request', details: { formErrors: ['Malformed request'], fieldErrors: {} } }, {}, ['Malformed request']],
    [{ error: 'Invalid request', details: { fieldErrors: { a: 'not a list', b: ['ok', 3] } } }, { b: ['ok'] }, []],
  ])('400 body %j → fieldErrors %j, formErrors %j', (body, fieldErrors, formErrors) => {
    expect(errorFromResponse(400, body, none)).toMatchObject({ fieldErrors, formErrors });
  });

  it.each([
    [
      'from the body',
      { error: 'Generation quota exceeded', used: 100, limit: 100, resetAt: '2026-12-01T00:00:00.000Z' },
      none,
      { used: 100, limit: 100, resetAt: '2026-12-01T00:00:00.000Z' },
    ],
    [
      'from the headers',
      { error: 'Generation quota exceeded' },
      new Headers({ 'X-Quota-Used': '5', 'X-Quota-Limit': '5', 'X-Quota-Reset': '2026-12-02T00:00:00.000Z' }),
      { used: 5, limit: 5, resetAt: '2026-12-02T00:00:00.000Z' },
    ],
    ['neither', null, none, { used: null, limit: null, resetAt: null }],
  ])('402 quota %s', (_label, body, headers, expected) => {
    expect(errorFromResponse(402, body, headers)).toMatchObject(expected);
  });

  it.each([
    [{ error: 'Account pending approval', code: 'pending_approval' }, 'pending_approval', true],
    [{ error: 'Account suspended' }, undefined, false],
    [{ error: 'Publishable keys cannot access this endpoint. Use a secret key (sk_live_).' }, undefined, false],
    [{ error: 'x', code: 42 }, undefined, false],
  ])('403 %j → code %p, pendingApproval %p', (body, code, pendingApproval) => {
    const error = errorFromResponse(403, body, none) as PermissionError;
    expect(error.code).toBe(code);
    expect(error.pendingApproval).toBe(pendingApproval);
  });

  it.each([
    [
      'body and headers',
      { error: 'Rate limit exceeded', retryAfterMs: 41_500 },
      { 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '0', 'Retry-After': '42' },
      { retryAfterMs: 41_500, limit: 30, remaining: 0 },
    ],
    ['Retry-After only', { error: 'Rate limit exceeded' }, { 'Retry-After': '42' }, { retryAfterMs: 42_000, limit: null, remaining: null }],
    ['nothing', null, {}, { retryAfterMs: null, limit: null, remaining: null }],
  ])('429 with %s', (_label, body, headers, expected) => {
    expect(errorFromResponse(429, body, new Headers(headers))).toMatchObject(expected);
  });

  it.each([
    [
      'render still generating',
      503,
      { error: 'The image is still being generated; retry shortly', jobId: 'job-1' },
      { 'Retry-After': '5' },
      { jobId: 'job-1', retryAfter: 5 },
    ],
    ['a plain 500', 500, { error: 'Internal server error' }, {}, { jobId: undefined, retryAfter: undefined }],
  ])('5xx: %s', (_label, status, body, headers, expected) => {
    expect(errorFromResponse(status, body, new Headers(headers))).toMatchObject(expected);
  });
});

describe('parseErrorBody', () => {
  it.each([
    ['{"error":"Job not found"}', { error: 'Job not found' }],
    ['<html>Bad gateway</html>', null],
    ['', null],
    ['[1,2]', null],
    ['"text"', null],
    ['null', null],
  ])('%p → %j', (text, expected) => expect(parseErrorBody(text)).toEqual(expected));
});

describe('errors not from a response', () => {
  it('GenerationFailedError carries the job and its message', () => {
    const job = { jobId: 'j', status: 'failed' as const, createdAt: '2026-11-23T12:00:00Z', error: 'The model refused' };
    const error = new GenerationFailedError(job);
    expect(error).toBeInstanceOf(PromptPixError);
    expect(error).toMatchObject({ name: 'GenerationFailedError', message: 'The model refused', job, status: 0 });
  });

  it('TimeoutError names the job and the time', () => {
    const error = new TimeoutError('j', 500, null);
    expect(error).toBeInstanceOf(PromptPixError);
    expect(error).toMatchObject({ name: 'TimeoutError', jobId: 'j', timeoutMs: 500, lastJob: null, message: 'Job j did not finish within 500 ms' });
  });
});
