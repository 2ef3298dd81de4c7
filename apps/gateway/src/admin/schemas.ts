import { z } from 'zod';
import { isStorableInstant, text } from '@promptpix/contracts';
import { MAX_BUDGET, plans, presetById, visualFamilies } from '@promptpix/core';

const accountStatuses = ['pending', 'approved', 'suspended', 'banned'] as const;

export const createAccountSchema = z.object({
  handle: z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/, 'lowercase letters, digits and inner dashes, 1 to 40 characters'),
  email: z.email(),
  plan: z.enum(plans).default('free'),
  status: z.enum(accountStatuses).default('pending'),
});

export const patchAccountSchema = z
  .object({
    status: z.enum(accountStatuses).optional(),
    plan: z.enum(plans).optional(),
    monthlyGenerations: z.number().int().min(0).nullable().optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'Nothing to change: give status, plan or monthlyGenerations');

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
export const keyLimitsShape = {
  budgetClientPerHour: budgetSetting('one client address may start per hour'),
  budgetClientPerDay: budgetSetting('one client address may start per day'),
  budgetKeyPerHour: budgetSetting('the key may start per hour'),
  budgetKeyPerDay: budgetSetting('the key may start per day'),
  signedPrompts: z
    .boolean({ error: 'Expected a boolean' })
    .optional()
    .meta({ description: "Publishable keys: start generations only for prompts signed with the key's signing secret" }),
};

export const createKeySchema = z.object({
  kind: z.enum(['secret', 'publishable']),
  name: text(1, 100, { trim: true }),
  domains: z.array(domainEntry).max(100).default([]),
  ...keyLimitsShape,
});

export const patchKeyLimitsSchema = z
  .object(keyLimitsShape)
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'Nothing to change: give a budget setting or signedPrompts');

export const createPermalinkSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9._~-]{1,200}$/, 'letters, digits and . _ ~ -, 1 to 200 characters'),
  imageIds: z
    .array(z.uuid())
    .min(1)
    .max(100)
    .refine((ids) => new Set(ids).size === ids.length, 'Duplicate image ids'),
});

const isoDate = z.iso
  .datetime({ offset: true })
  .or(z.iso.date())
  .transform((v) => new Date(v))
  .refine(isStorableInstant, { error: 'Must be an instant from year 1 to 9999' });

export const analyticsExportQuerySchema = z.object({
  format: z.enum(['csv', 'ndjson']).default('ndjson'),
  from: isoDate.optional().transform((v) => v ?? new Date(0)),
  to: isoDate.optional().transform((v) => v ?? new Date(Date.now() + 1000)),
});

export const createStyleSchema = z.object({
  name: text(1, 100, { trim: true }),
  description: text(0, 500).nullable().optional(),
  tags: z.array(text(1, 50)).max(20).default([]),
  baseStyle: z
    .string()
    .refine((id) => presetById(id) !== undefined, 'Unknown preset')
    .nullable()
    .optional(),
  promptTemplate: text(0, 2000)
    .refine((t) => t.includes('{prompt}'), 'Must contain {prompt}')
    .nullable()
    .optional(),
});

const characterFields = {
  name: text(1, 100, { trim: true }),
  description: text(0, 1000).nullable().optional(),
  specSheet: text(1, 5000).nullable().optional(),
  behavior: z.enum(['match', 'lock']).default('match'),
  lockedStyle: text(1, 200).nullable().optional(),
  lockedFamily: z.enum(visualFamilies).nullable().optional(),
  images: z.array(z.string().min(1)).min(1).max(10).optional(),
};

export const createCharacterSchema = z
  .object(characterFields)
  .refine((c) => c.images !== undefined || c.specSheet, { error: 'Give 1 to 10 reference images or a spec sheet', path: ['images'] });

export const patchCharacterSchema = z.object({
  ...characterFields,
  name: characterFields.name.optional(),
  behavior: z.enum(['match', 'lock']).optional(),
});

export const webhookDeliveriesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).meta({ description: 'How many deliveries, newest first (1 to 200, default 50)' }),
});
