import { ErrorMessages } from '@promptpix/contracts';
import { BUSY_RETRIES, BUSY_RETRY_MS, KEY_BUSY, POLL_LIMIT_MS, pollDelay, rateLimitDelay, retriesBusy, retryDelay } from './backoff';

describe('poll schedule', () => {
  it('starts at one second and backs off to two seconds apart (spec: poll every second or two)', () => {
    expect(Array.from({ length: 6 }, (_, i) => pollDelay(i))).toEqual([1000, 1250, 1563, 1953, 2000, 2000]);
  });

  it('gives a job several minutes in all', () => {
    let total = 0;
    let polls = 0;
    while (total < POLL_LIMIT_MS) total += pollDelay(polls++);
    expect(polls).toBeGreaterThan(80);
    expect(polls).toBeLessThan(100);
  });
});

describe('retry delays', () => {
  it.each([
    [0, 500],
    [1, 1000],
    [3, 4000],
    [4, 8000],
    [9, 8000],
  ])('network error or 5xx, attempt %i: %i ms', (attempt, ms) => expect(retryDelay(attempt)).toBe(ms));

  it.each([
    [{ error: 'Rate limit exceeded', retryAfterMs: 800 }, 0, 800],
    [{ error: 'Rate limit exceeded', retryAfterMs: 42_000 }, 3, 42_000],
    [{ retryAfterMs: 0 }, 0, 100],
    [{ retryAfterMs: 3_600_000 }, 0, 600_000],
    [{ retryAfterMs: '800' }, 1, 1000],
    [{ error: 'Rate limit exceeded' }, 2, 2000],
    [null, 0, 500],
    [undefined, 0, 500],
  ])('429 with body %j, attempt %i: %i ms', (body, attempt, ms) => expect(rateLimitDelay(body, attempt)).toBe(ms));
});

describe('busy keys', () => {
  it('names the failure exactly as the service does', () => {
    expect(KEY_BUSY).toBe(ErrorMessages.tooManyActiveJobs);
  });

  it.each([
    [KEY_BUSY, 0, true],
    [KEY_BUSY, BUSY_RETRIES - 1, true],
    [KEY_BUSY, BUSY_RETRIES, false],
    ['Unknown or empty shortcut', 0, false],
    ['Generation quota exceeded', 0, false],
    [undefined, 0, false],
  ])('%j after %i retries: retry again %s', (error, retries, expected) => expect(retriesBusy(error, retries)).toBe(expected));

  it('keeps retrying about as long as a job is polled', () => {
    expect(BUSY_RETRIES * BUSY_RETRY_MS).toBe(POLL_LIMIT_MS);
  });
});
