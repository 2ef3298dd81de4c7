import { z } from 'zod';
import { isStorableInstant } from '@promptpix/contracts';
import { plans } from '@promptpix/core';

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

export const webhookDeliveriesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).meta({ description: 'How many deliveries, newest first (1 to 200, default 50)' }),
});
