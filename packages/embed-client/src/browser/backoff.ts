/** Timing rules of the page script, kept pure so they can be table-tested. */

/** First poll of a generating job after 1 s, then 25% longer each time, never more than 2 s apart (spec: poll every second or two). */
export const pollDelay = (attempt: number): number => Math.min(2000, Math.round(1000 * 1.25 ** attempt));

/** Stop polling a job after this long (a typical generation takes 10-15 s; a job lives an hour). */
export const POLL_LIMIT_MS = 180_000;

/** What an embed element reports when its key has too many jobs in progress: worth retrying, unlike other failures. */
export const KEY_BUSY = 'Too many jobs in progress for this key';
/** How long a busy element waits before it is resolved again (the service's retryAfterMs), and how often. */
export const BUSY_RETRY_MS = 2000;
export const BUSY_RETRIES = POLL_LIMIT_MS / BUSY_RETRY_MS;

/** Whether a failed element should be resolved again later, given how often it already was. */
export const retriesBusy = (error: unknown, retries: number): boolean => error === KEY_BUSY && retries < BUSY_RETRIES;

/** Wait after a failed network call or a 5xx: 0.5 s, 1 s, 2 s, ... up to 8 s. */
export const retryDelay = (attempt: number): number => Math.min(8000, 500 * 2 ** attempt);

/**
 * How long to back off after a 429: the body's `retryAfterMs` (spec, Errors), bounded to
 * [100 ms, 10 min]; when the body carries none, the ordinary retry delay.
 */
export function rateLimitDelay(body: unknown, attempt: number): number {
  const value = (body as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof value === 'number' && value >= 0 ? Math.min(600_000, Math.max(100, value)) : retryDelay(attempt);
}
