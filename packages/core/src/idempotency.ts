/** Idempotent retries of generate (README, "Idempotent retries"): the rules, without I/O. */

/** How long a finished request's response answers retries with the same key and body. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** How long a claim of a request still running holds; a gateway that dies mid-request frees it after this. */
export const IDEMPOTENCY_PENDING_SECONDS = 60;

/** A usable Idempotency-Key: 1 to 255 visible ASCII characters (a UUID is typical). The OpenAPI document states this pattern. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The header's value when it is usable (IDEMPOTENCY_KEY_PATTERN). */
export function parseIdempotencyKey(header: string | undefined): { key: string | null } | { error: string } {
  if (header === undefined) return { key: null };
  return IDEMPOTENCY_KEY_PATTERN.test(header) ? { key: header } : { error: 'Must be 1 to 255 visible ASCII characters' };
}

/**
 * The request as a canonical string: the validated body with its keys sorted at every level, so
 * `{"a":1,"b":2}` and `{"b":2,"a":1}`, or a default sent explicitly and left out, count as the
 * same request.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
