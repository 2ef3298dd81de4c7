import { z } from 'zod';

// A UTF-16 surrogate without its partner: valid in JSON and JavaScript, refused by PostgreSQL.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether PostgreSQL's text and JSONB can hold this string: no NUL, no unpaired surrogate. */
export const isStorableString = (s: string): boolean => !s.includes('\u0000') && !UNPAIRED_SURROGATE.test(s);

/** Deepest nesting of objects and arrays kept in a JSON column (an event's metadata). */
export const MAX_JSON_DEPTH = 8;

/**
 * Why PostgreSQL's JSONB could not hold a JSON value (a string or key with NUL or an unpaired
 * surrogate, or nesting deeper than MAX_JSON_DEPTH), or null when it can.
 */
export function unstorableJson(value: unknown, depth = 1): string | null {
  if (typeof value === 'string') return isStorableString(value) ? null : 'Must not contain NUL characters or unpaired surrogates';
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_JSON_DEPTH) return `At most ${MAX_JSON_DEPTH} levels of nesting`;
  for (const [key, inner] of Object.entries(value)) {
    const issue = unstorableJson(key, depth) ?? unstorableJson(inner, depth + 1);
    if (issue) return issue;
  }
  return null;
}

/**
 * A bounded string that PostgreSQL can store: text columns and JSONB refuse NUL characters and
 * unpaired surrogates, so they are a 400 here rather than a failure further down. `trim` trims
 * before the length check.
 */
export const text = (min: number, max: number, options: { trim?: boolean } = {}) => {
  const string = z.string({ error: 'Expected a string' });
  const bounds = min === max ? `Must be ${min} characters` : min === 0 ? `Must be at most ${max} characters` : `Must be ${min} to ${max} characters`;
  return (options.trim ? string.trim() : string)
    .min(min, { error: bounds, abort: true })
    .max(max, { error: bounds, abort: true })
    .refine((s) => !s.includes('\u0000'), { error: 'Must not contain NUL characters' })
    .refine((s) => !UNPAIRED_SURROGATE.test(s), { error: 'Must not contain unpaired surrogates' });
};
