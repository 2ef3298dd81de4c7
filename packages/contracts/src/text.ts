import { z } from 'zod';

/**
 * A bounded string that PostgreSQL can store: text columns and JSONB refuse NUL characters, so
 * they are a 400 here rather than a failure further down.
 */
export const text = (min: number, max: number) =>
  z
    .string({ error: 'Expected a string' })
    .min(min, { error: min === max ? `Must be ${min} characters` : `Must be ${min} to ${max} characters`, abort: true })
    .max(max, { error: `Must be ${min} to ${max} characters`, abort: true })
    .refine((s) => !s.includes('\u0000'), { error: 'Must not contain NUL characters' });

export const hasNul = (value: unknown): boolean => JSON.stringify(value).includes('\\u0000');
