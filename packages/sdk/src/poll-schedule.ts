/**
 * Timing of waitForImage, kept pure so it can be table-tested. The numbers match the page
 * script's (packages/embed-client/src/browser/backoff.ts), so both clients load the service alike.
 */
import { ConnectionError, RateLimitError, ServerError } from './errors';

export const DEFAULT_WAIT_TIMEOUT_MS = 180_000;

/** Delay before poll number `pollsDone + 1`: 1 s, then 25% longer each time, never more than 2 s apart (spec: every second or two). */
export const pollDelayMs = (pollsDone: number): number => Math.min(2000, Math.round(1000 * 1.25 ** pollsDone));

/** Backoff after a network error or a 5xx: 0.5 s, 1 s, 2 s, ... up to 8 s. */
export const backoffMs = (failures: number): number => Math.min(8000, 500 * 2 ** Math.max(0, failures - 1));

const clamp = (ms: number, min: number, max: number) => Math.min(max, Math.max(min, ms));

/**
 * How long to wait before retrying after `error` (the `failures`-th in a row), or null when the
 * error is not worth retrying (401, 403, 404, a failed job, ...). A 429's `retryAfterMs` and a
 * 5xx's Retry-After are honoured, bounded to [100 ms, 10 min].
 */
export function retryDelayMs(error: unknown, failures: number): number | null {
  if (error instanceof RateLimitError) return error.retryAfterMs === null ? backoffMs(failures) : clamp(error.retryAfterMs, 100, 600_000);
  if (error instanceof ServerError) return error.retryAfter === undefined ? backoffMs(failures) : clamp(error.retryAfter * 1000, 100, 600_000);
  if (error instanceof ConnectionError) return backoffMs(failures);
  return null;
}
