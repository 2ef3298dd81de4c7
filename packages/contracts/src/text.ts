import { z } from 'zod';

/**
 * A bounded string that PostgreSQL can store: text columns and JSONB refuse NUL characters, so
 * they are a 400 here rather than a failure further down. `trim` trims before the length check.
 */
export const text = (min: number, max: number, options: { trim?: boolean } = {}) => {
  const string = z.string({ error: 'Expected a string' });
  const bounds = min === max ? `Must be ${min} characters` : min === 0 ? `Must be at most ${max} characters` : `Must be ${min} to ${max} characters`;
  return (options.trim ? string.trim() : string)
    .min(min, { error: bounds, abort: true })
    .max(max, { error: bounds, abort: true })
    .refine((s) => !s.includes('\u0000'), { error: 'Must not contain NUL characters' });
};

export const hasNul = (value: unknown): boolean => JSON.stringify(value).includes('\\u0000');
