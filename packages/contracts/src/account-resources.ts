import { z } from 'zod';
import { text } from './text';
import { keyKinds, MAX_BUDGET, visualFamilies } from './vocabulary';

/**
 * Request bodies for an account's resources (keys and their limits, permalinks, styles,
 * characters, failed jobs), taken alike by the operator API under /admin and the dashboard's JSON
 * API under /dashboard/api (./dashboard.ts). A rule that needs the service's own data (a style's
 * `baseStyle` must name a preset of @promptpix/core's catalog) is added by the gateway.
 */

const domainEntry = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^(\*\.)?[a-z0-9.-]+(:\d+)?$|^https?:\/\/[^\s/]+\/?$/i, 'a host such as app.example.com, *.example.com, or an origin');

const budgetSetting = (what: string) =>
  z
    .number({ error: 'Expected an integer or null' })
    .int({ error: 'Expected an integer or null' })
    .min(0, { error: 'Must be at least 0' })
    .max(MAX_BUDGET, { error: `Must be at most ${MAX_BUDGET}` })
    .nullable()
    .optional()
    .meta({ description: `Publishable keys: fresh generations ${what}; null: the service default (docs/api/embed.md)` });

/** A key's own limits (docs/api/embed.md, "Publishable keys: budgets and signed prompts"). */
const keyLimitsShape = {
  budgetClientPerHour: budgetSetting('one client address may start per hour'),
  budgetClientPerDay: budgetSetting('one client address may start per day'),
  budgetKeyPerHour: budgetSetting('the key may start per hour'),
  budgetKeyPerDay: budgetSetting('the key may start per day'),
  signedPrompts: z
    .boolean({ error: 'Expected a boolean' })
    .optional()
    .meta({ description: "Publishable keys: start generations only for prompts signed with the key's signing secret" }),
};

/** A new API key: POST /admin/accounts/:handle/keys, POST /dashboard/api/keys. */
export const createKeySchema = z.object({
  kind: z.enum(keyKinds),
  name: text(1, 100, { trim: true }),
  domains: z.array(domainEntry).max(100).default([]),
  ...keyLimitsShape,
});

/** A publishable key's budget settings: PATCH /admin/keys/:id/limits, PATCH /dashboard/api/keys/:id/limits. */
export const patchKeyLimitsSchema = z
  .object(keyLimitsShape)
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'Nothing to change: give a budget setting or signedPrompts');

/** A permalink: POST /admin/accounts/:handle/permalinks (the dashboard takes its `name` alone). */
export const createPermalinkSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9._~-]{1,200}$/, 'letters, digits and . _ ~ -, 1 to 200 characters'),
  imageIds: z
    .array(z.uuid())
    .min(1)
    .max(100)
    .refine((ids) => new Set(ids).size === ids.length, 'Duplicate image ids'),
});

/** An own style, as created. The gateway adds that `baseStyle` names a known preset ("Unknown preset"). */
export const styleInputSchema = z.object({
  name: text(1, 100, { trim: true }),
  description: text(0, 500).nullable().optional(),
  tags: z.array(text(1, 50)).max(20).default([]),
  baseStyle: z.string().nullable().optional(),
  promptTemplate: text(0, 2000)
    .refine((t) => t.includes('{prompt}'), 'Must contain {prompt}')
    .nullable()
    .optional(),
});

/** An own style's change: any of its fields (no default filled in for a field not sent). */
export const stylePatchSchema = styleInputSchema
  .extend({ tags: styleInputSchema.shape.tags.unwrap() })
  .partial()
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'Nothing to change');

const characterFields = {
  name: text(1, 100, { trim: true }),
  description: text(0, 1000).nullable().optional(),
  specSheet: text(1, 5000).nullable().optional(),
  behavior: z.enum(['match', 'lock']).default('match'),
  lockedStyle: text(1, 200).nullable().optional(),
  lockedFamily: z.enum(visualFamilies).nullable().optional(),
  /** 1 to 10 photos as data: URLs (or base64); or give a specSheet instead. */
  images: z.array(z.string().min(1)).min(1).max(10).optional(),
};

/** A character: reference photos or a spec sheet. */
export const createCharacterSchema = z
  .object(characterFields)
  .refine((c) => c.images !== undefined || c.specSheet, { error: 'Give 1 to 10 reference images or a spec sheet', path: ['images'] });

/** A character's change: any of its fields. */
export const patchCharacterSchema = z.object({
  ...characterFields,
  name: characterFields.name.optional(),
  behavior: z.enum(['match', 'lock']).optional(),
});

/** Query of the failed-job lists: GET /admin/failed-jobs (`account` too), GET /dashboard/api/failed-jobs. */
export const failedJobsQuerySchema = z.object({
  account: z.string().min(1).max(40).optional(),
  model: z.string().min(1).max(200).optional(),
  since: z.iso.datetime({ offset: true, error: 'Expected an ISO 8601 date-time' }).optional(),
  limit: z.preprocess((v) => (v === undefined ? 50 : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), z.number().int().min(1).max(200)),
  cursor: z.string().max(200).optional(),
});

/** What every view of a key shows, whoever asks (the dashboard, the operator API). */
export const keyIdentitySchema = z.object({
  id: z.uuid(),
  kind: z.enum(keyKinds),
  name: z.string(),
  domains: z.array(z.string()),
});

/** The monthly quota: units used, the plan's limit, and when the count starts again (a rolling monthly date). */
export const quotaSchema = z.object({ used: z.int(), limit: z.int(), resetAt: z.iso.datetime({ offset: true }) });
export type Quota = z.infer<typeof quotaSchema>;
