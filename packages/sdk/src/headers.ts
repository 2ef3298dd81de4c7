import type { QuotaInfo } from './types';

/** What the parsers need of a `Headers` object (a plain stub in tests). */
export interface HeaderSource {
  get(name: string): string | null;
}

/** A header holding a non-negative integer, or null when it is absent or malformed. */
export function integerHeader(headers: HeaderSource, name: string): number | null {
  const value = headers.get(name)?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : null;
}

/** X-Quota-Used / X-Quota-Limit / X-Quota-Reset, or null unless all three are usable. */
export function quotaFromHeaders(headers: HeaderSource): QuotaInfo | null {
  const used = integerHeader(headers, 'X-Quota-Used');
  const limit = integerHeader(headers, 'X-Quota-Limit');
  const resetAt = headers.get('X-Quota-Reset')?.trim();
  if (used === null || limit === null || !resetAt || Number.isNaN(Date.parse(resetAt))) return null;
  return { used, limit, resetAt };
}

/** X-RateLimit-Limit / X-RateLimit-Remaining, each null when absent. */
export function rateLimitFromHeaders(headers: HeaderSource): { limit: number | null; remaining: number | null } {
  return { limit: integerHeader(headers, 'X-RateLimit-Limit'), remaining: integerHeader(headers, 'X-RateLimit-Remaining') };
}

/** Retry-After in seconds, given as delta-seconds or as an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function retryAfterSeconds(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const value = headers.get('Retry-After')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // An HTTP date names its weekday and month; this also keeps Date.parse from reading "-3" as a year.
  const date = /[a-z]{3}/i.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
