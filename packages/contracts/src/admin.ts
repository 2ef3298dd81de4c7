import { z } from 'zod';
import { keyIdentitySchema } from './account-resources';
import { isStorableInstant } from './instant';
import { plans } from './vocabulary';

/**
 * The operator API under /admin (handlers in apps/gateway/src/admin): its own request shapes and its
 * answers, which the routes build and the OpenAPI document describes. The bodies it shares with the
 * dashboard (keys, key limits, permalinks, styles, characters, failed jobs) are in
 * ./account-resources.ts.
 */

// ---- Requests ---------------------------------------------------------------------------------

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

// ---- Responses --------------------------------------------------------------------------------

export const adminAccountSchema = z
  .object({
    id: z.uuid(),
    handle: z.string(),
    email: z.string(),
    plan: z.enum(plans),
    status: z.enum(['pending', 'approved', 'suspended', 'banned']),
    monthlyGenerations: z.int().nullable().meta({ description: "Overrides the plan's monthly limit; null uses the plan's" }),
    quotaUsed: z.int(),
    quotaPeriodStart: z.iso.datetime({ offset: true }),
    createdAt: z.iso.datetime({ offset: true }),
    mail: z.enum(['sent', 'failed']).optional().meta({
      description:
        'Present when this call approved the account: whether the approval e-mail with its dashboard sign-in link went out (a failure is logged; the call still succeeds)',
    }),
  })
  .meta({ id: 'AdminAccount' });

export const adminCreatedKeySchema = keyIdentitySchema
  .extend({
    key: z.string().meta({ description: 'The key itself, shown this once; only its hash is stored', example: 'pk_live_3xT9...' }),
    replaced: z.uuid().optional().meta({ description: 'On rotation: the key this one replaces, now revoked' }),
  })
  .meta({ id: 'AdminCreatedKey' });

const budgetValue = z.number().int().nullable();

/** A key's settings as the operator API shows them (never the key or its hash). */
export const adminKeySchema = keyIdentitySchema
  .extend({
    hint: z.string().meta({ description: "The key's first characters" }),
    budgetClientPerHour: budgetValue,
    budgetClientPerDay: budgetValue,
    budgetKeyPerHour: budgetValue,
    budgetKeyPerDay: budgetValue,
    budgetHitAt: z.iso.datetime({ offset: true }).nullable().meta({ description: 'Last time a budget refused a fresh generation' }),
    signedPrompts: z.boolean(),
    signingSecret: z.string().nullable().meta({ description: "Publishable keys: the secret the site's server signs prompts with (HMAC-SHA256)" }),
  })
  .meta({ id: 'AdminKey' });

export const adminPermalinkSchema = z
  .object({ name: z.string(), url: z.url().meta({ description: 'The permanent URL, /api/img/{handle}/{name}' }), imageIds: z.array(z.uuid()) })
  .meta({ id: 'AdminPermalink' });

export const adminStyleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    tags: z.array(z.string()),
    baseStyle: z.string().nullable(),
    promptTemplate: z.string().nullable(),
  })
  .meta({ id: 'AdminStyle' });

export const adminQueueSchema = z
  .object({
    depth: z.object({
      waiting: z.int().meta({ description: 'Jobs waiting for a worker, in the fair order' }),
      active: z.int(),
      delayed: z.int().meta({ description: 'Jobs waiting out a retry backoff' }),
      failed: z.int(),
      groupsWaiting: z.int().meta({ description: 'Accounts with at least one job waiting; workers take them in turn' }),
      largestGroupBacklog: z.int().meta({ description: 'The most jobs one account has waiting' }),
    }),
    failed: z.array(z.object({ jobId: z.string(), error: z.string(), attemptsMade: z.int(), failedAt: z.string().nullable() })),
  })
  .meta({ id: 'AdminQueue' });

export const adminRetriedSchema = z.object({ jobId: z.string(), status: z.literal('queued') }).meta({ id: 'AdminRetried' });

/** A job that failed for good (docs/operating/models.md, "Failed jobs"). */
export const adminFailedJobSchema = z
  .object({
    jobId: z.string(),
    account: z.string().meta({ description: "The account's handle" }),
    model: z.string().meta({ description: 'The model id the job named (the default when it named none)' }),
    reason: z.string().meta({ description: "What the job's caller read in `error`" }),
    prompt: z.string(),
    style: z.string().nullable(),
    width: z.int(),
    height: z.int(),
    createdAt: z.iso.datetime(),
    failedAt: z.iso.datetime(),
    retriedAs: z.string().nullable().meta({ description: "The job an operator's retry started" }),
    retriedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'AdminFailedJob' });

export const adminFailedJobPageSchema = z
  .object({
    data: z.array(adminFailedJobSchema),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next (older) page; null on the last' }),
  })
  .meta({ id: 'AdminFailedJobPage' });

export const adminFailedJobRetriedSchema = z
  .object({
    jobId: z.string().meta({ description: 'The new job' }),
    retryOf: z.string(),
    status: z.enum(['queued', 'processing', 'completed', 'failed']),
    outcome: z
      .enum(['cached', 'derived', 'joined', 'generated'])
      .meta({ description: 'generated: a fresh generation, charged; cached/derived: served from the cache, free; joined: an identical job in flight' }),
  })
  .meta({ id: 'AdminFailedJobRetried' });

export const adminLibrarySeedSchema = z.object({ seeded: z.int().min(0), existing: z.int().min(0) }).meta({ id: 'AdminLibrarySeed' });

export const adminSignInLinkSchema = z
  .object({
    url: z.string().meta({
      description: 'The one-time dashboard sign-in link; hand it to the account holder',
      example: 'https://promptpix.example.com/dashboard/sign-in#token=…',
    }),
    expiresAt: z.iso.datetime().meta({ description: 'When the link stops working (7 days); it works once before then' }),
  })
  .meta({ id: 'AdminSignInLink' });

export const adminWebhookSecretSchema = z
  .object({
    secret: z
      .string()
      .meta({ description: "The account's webhook signing secret (Standard Webhooks `whsec_` + base64)", example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
  })
  .meta({ id: 'AdminWebhookSecret' });

export const adminWebhookDeliverySchema = z
  .object({
    id: z.uuid().meta({ description: 'The `webhook-id` every attempt carried' }),
    jobId: z.string(),
    event: z.enum(['completed', 'failed']).nullable().meta({ description: 'Null while waiting for the job to finish' }),
    url: z.string(),
    status: z.enum(['waiting', 'pending', 'delivered', 'failed', 'blocked']).meta({
      description:
        'waiting: for a job in flight; pending: queued or being retried; delivered; failed: every attempt failed; blocked: the SSRF guard refused the address (not retried)',
    }),
    attempts: z.int().min(0),
    lastStatusCode: z.int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.iso.datetime({ offset: true }),
    lastAttemptAt: z.iso.datetime({ offset: true }).nullable(),
    deliveredAt: z.iso.datetime({ offset: true }).nullable(),
  })
  .meta({ id: 'AdminWebhookDelivery' });

export const adminWebhookDeliveriesSchema = z.object({ deliveries: z.array(adminWebhookDeliverySchema) }).meta({ id: 'AdminWebhookDeliveries' });

export type AdminAccount = z.infer<typeof adminAccountSchema>;
export type AdminCreatedKey = z.infer<typeof adminCreatedKeySchema>;
export type AdminKey = z.infer<typeof adminKeySchema>;
export type AdminPermalink = z.infer<typeof adminPermalinkSchema>;
export type AdminStyle = z.infer<typeof adminStyleSchema>;
export type AdminQueue = z.infer<typeof adminQueueSchema>;
export type AdminRetried = z.infer<typeof adminRetriedSchema>;
export type AdminFailedJob = z.infer<typeof adminFailedJobSchema>;
export type AdminFailedJobPage = z.infer<typeof adminFailedJobPageSchema>;
export type AdminFailedJobRetried = z.infer<typeof adminFailedJobRetriedSchema>;
export type AdminLibrarySeed = z.infer<typeof adminLibrarySeedSchema>;
export type AdminSignInLink = z.infer<typeof adminSignInLinkSchema>;
export type AdminWebhookSecret = z.infer<typeof adminWebhookSecretSchema>;
export type AdminWebhookDelivery = z.infer<typeof adminWebhookDeliverySchema>;
export type AdminWebhookDeliveries = z.infer<typeof adminWebhookDeliveriesSchema>;
