import { z } from 'zod';
import { generateBodySchema, text } from '@promptpix/contracts';
import { createCharacterSchema, createKeySchema, createPermalinkSchema, createStyleSchema, patchCharacterSchema } from '../../admin/schemas';
import { decodeCursor } from './cursor';
import { listBoundOf } from './list-bounds';

const listBound = (edge: 'from' | 'to') =>
  z.string().transform((value, ctx) => {
    const instant = listBoundOf(value, edge);
    if (!instant) {
      ctx.addIssue({ code: 'custom', message: 'Expected a date (YYYY-MM-DD) or an ISO 8601 instant with its offset, from year 1 to 9999' });
      return z.NEVER;
    }
    return instant;
  });

/** Query of GET /dashboard/api/images. */
export const imageListQuerySchema = z
  .object({
    q: text(0, 200)
      .optional()
      .transform((v) => v?.trim() || undefined),
    style: text(1, 200).optional(),
    from: listBound('from').optional(),
    to: listBound('to').optional(),
    cursor: z
      .string()
      .transform((value, ctx) => {
        const cursor = decodeCursor(value);
        if (!cursor) {
          ctx.addIssue({ code: 'custom', message: 'Invalid cursor: pass nextCursor of the previous page' });
          return z.NEVER;
        }
        return cursor;
      })
      .optional(),
    limit: z.coerce
      .number({ error: 'Expected an integer' })
      .int({ error: 'Expected an integer' })
      .min(1, { error: 'Must be between 1 and 100' })
      .max(100, { error: 'Must be between 1 and 100' })
      .default(24),
  })
  .refine((q) => !q.from || !q.to || q.from < q.to, { error: 'Must not be before from', path: ['to'] });

/** POST /dashboard/api/images/:id/permalink: the operator API's name rule. */
export const imagePermalinkSchema = z.object({ name: createPermalinkSchema.shape.name });

/** POST /dashboard/api/keys: the operator API's key schema. */
export const createKeyBodySchema = createKeySchema;

/** POST /dashboard/api/characters: the operator API's character schema (photos or a spec sheet). */
export const createCharacterBodySchema = createCharacterSchema;
/** PATCH /dashboard/api/characters/:id: the operator API's patch, without images. */
export const patchCharacterBodySchema = patchCharacterSchema.omit({ images: true });

/** POST /dashboard/api/styles: the operator API's style schema. */
export const createStyleBodySchema = createStyleSchema;
/** PATCH /dashboard/api/styles/:id: any of its fields (no default filled in for a field not sent). */
export const patchStyleBodySchema = createStyleSchema
  .extend({ tags: createStyleSchema.shape.tags.unwrap() })
  .partial()
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'Nothing to change');

/** GET /dashboard/api/usage(.csv). */
export const usageQuerySchema = z.object({
  days: z.coerce
    .number({ error: 'Expected an integer' })
    .int({ error: 'Expected an integer' })
    .min(1, { error: 'Must be between 1 and 366' })
    .max(366, { error: 'Must be between 1 and 366' })
    .default(30),
});

/** POST /dashboard/api/preview: the public generate's prompt and style rules. */
export const previewBodySchema = z.object({
  prompt: generateBodySchema.shape.prompt,
  style: generateBodySchema.shape.style,
});

/** Body of POST /dashboard/api/playground: a generate body as the public API takes it, without a webhook (the playground watches the job itself). */
export const playgroundBodySchema = generateBodySchema.omit({ webhookUrl: true });
