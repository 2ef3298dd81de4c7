import { z } from 'zod';
import { stylePatchSchema, styleInputSchema } from '@promptpix/contracts';
import { presetById } from '@promptpix/core';

// The contract's style bodies, plus the one rule it cannot state: a `baseStyle` names a preset of
// core's catalog. The operator API and the dashboard validate with these.
const knownBaseStyle = z
  .string()
  .refine((id) => presetById(id) !== undefined, 'Unknown preset')
  .nullable()
  .optional();

/** POST /admin/accounts/:handle/styles, POST /dashboard/api/styles. */
export const createStyleSchema = styleInputSchema.extend({ baseStyle: knownBaseStyle });

/** PATCH /dashboard/api/styles/:id. */
export const patchStyleSchema = stylePatchSchema.safeExtend({ baseStyle: knownBaseStyle });
