import { ConnectionError, GenerationFailedError, NotFoundError, PermissionError, RateLimitError, ServerError } from './errors';
import { backoffMs, DEFAULT_WAIT_TIMEOUT_MS, pollDelayMs, retryDelayMs } from './poll-schedule';

describe('pollDelayMs', () => {
  it('first poll after 1 s, growing to 2 s apart (spec: poll every second or two)', () => {
    expect(Array.from({ length: 7 }, (_, i) => pollDelayMs(i))).toEqual([1000, 1250, 1563, 1953, 2000, 2000, 2000]);
  });

  it('the default timeout allows about ninety polls', () => {
    let total = 0;
    let polls = 0;
    while (total < DEFAULT_WAIT_TIMEOUT_MS) total += pollDelayMs(polls++);
    expect(polls).toBeGreaterThan(80);
    expect(polls).toBeLessThan(100);
  });
});

describe('backoffMs', () => {
  it.each([
    [1, 500],
    [2, 1000],
    [3, 2000],
    [4, 4000],
    [5, 8000],
    [12, 8000],
  ])('failure %i: %i ms', (failures, ms) => expect(backoffMs(failures)).toBe(ms));
});

describe('retryDelayMs', () => {
  const rateLimited = (retryAfterMs: number | null) =>
    new RateLimitError('Rate limit exceeded', { status: 429, body: null, retryAfterMs, limit: 30, remaining: 0 });
  const server = (status: number, retryAfter?: number) => new ServerError('Internal server error', { status, body: null, retryAfter });

  it.each([
    ['429 with retryAfterMs', rateLimited(42_000), 1, 42_000],
    ['429 with a tiny retryAfterMs', rateLimited(0), 1, 100],
    ['429 with an hour', rateLimited(3_600_000), 1, 600_000],
    ['429 without retryAfterMs', rateLimited(null), 3, 2000],
    ['500', server(500), 1, 500],
    ['502, third failure', server(502), 3, 2000],
    ['503 with Retry-After 5', server(503, 5), 1, 5000],
    ['network error', new ConnectionError('down', new TypeError('fetch failed')), 2, 1000],
    ['404', new NotFoundError('Job not found', { status: 404, body: null }), 1, null],
    ['403', new PermissionError('Account pending approval', { status: 403, body: { code: 'pending_approval' } }), 1, null],
    ['a failed job', new GenerationFailedError({ jobId: 'j', status: 'failed', createdAt: '2026-11-23T12:00:00Z', error: 'no' }), 1, null],
    ['anything else', new Error('bug'), 1, null],
    ['a plain error with the same name', Object.assign(new Error('x'), { name: 'RateLimitError' }), 1, null],
  ])('%s → %p', (_label, error, failures, expected) => {
    expect(retryDelayMs(error, failures)).toBe(expected);
  });
});
