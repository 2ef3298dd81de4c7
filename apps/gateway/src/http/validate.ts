import { z } from 'zod';
import { AppError } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';

/** Parses with a zod schema or throws the spec's 400 `{ error, details: { formErrors, fieldErrors } }`. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new AppError('invalid_request', ErrorMessages.invalidRequest, { details: z.flattenError(result.error) });
}
