import { PermanentJobError } from '@promptpix/core';

export const toError = (value: unknown): Error => (value instanceof Error ? value : new Error(String(value)));

/** By class or by name, so a copy of the class from another module instance still counts. */
export const isPermanentJobError = (error: unknown): boolean =>
  error instanceof PermanentJobError || (error instanceof Error && error.name === 'PermanentJobError');
