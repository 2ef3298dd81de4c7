import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  adminAccountSchema,
  adminCreatedKeySchema,
  adminFailedJobPageSchema,
  adminFailedJobRetriedSchema,
  adminKeySchema,
  adminLibrarySeedSchema,
  adminPermalinkSchema,
  adminQueueSchema,
  adminRetriedSchema,
  adminSignInLinkSchema,
  adminStyleSchema,
  analyticsExportQuerySchema,
  characterSchema,
  createAccountSchema,
  createCharacterSchema,
  createKeySchema,
  createPermalinkSchema,
  errorBodySchema,
  invalidRequestBodySchema,
  patchAccountSchema,
  patchCharacterSchema,
  patchKeyLimitsSchema,
  styleInputSchema,
} from '@promptpix/contracts';
import { auth, json } from '../shared';

/** The operator API (DECISIONS, "Accounts, keys, operator surface"); `npm run admin` is a client of it. */

const handle = z.object({ handle: z.string().meta({ description: "The account's handle" }) });
const body = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });
const bad = json(invalidRequestBodySchema, 'Bad input; `details.fieldErrors` names each field');
const unauthorized = json(errorBodySchema, 'Missing or wrong admin token');
const accountNotFound = json(errorBodySchema.meta({ example: { error: 'Account not found' } }), 'No account with this handle');

const op = (operationId: string, summary: string, responses: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  tags: ['Operator'],
  operationId,
  summary,
  security: auth.admin,
  ...extra,
  responses: { ...responses, '401': unauthorized },
});

export const adminApiPaths: ZodOpenApiPathsObject = {
  '/admin/api/v1/accounts': {
    post: op(
      'adminCreateAccount',
      'Create an account (pending unless a status is given)',
      { '201': json(adminAccountSchema, 'The account'), '400': bad },
      { requestBody: body(createAccountSchema) },
    ),
  },
  '/admin/api/v1/accounts/{handle}': {
    get: op('adminGetAccount', 'An account', { '200': json(adminAccountSchema, 'The account'), '404': accountNotFound }, { requestParams: { path: handle } }),
    patch: op(
      'adminUpdateAccount',
      'Approve, suspend or ban an account, change its plan, or override its monthly generations (null clears the override)',
      { '200': json(adminAccountSchema, 'The account'), '400': bad, '404': accountNotFound },
      { requestParams: { path: handle }, requestBody: body(patchAccountSchema) },
    ),
  },
  '/admin/api/v1/accounts/{handle}/sign-in-link': {
    post: op(
      'adminIssueSignInLink',
      'A one-time dashboard sign-in link (7 days) for the operator to hand over, e.g. when e-mail does not reach the user',
      {
        '201': json(adminSignInLinkSchema, 'The link'),
        '404': accountNotFound,
        '409': json(errorBodySchema.meta({ example: { error: 'The account is suspended: it cannot sign in' } }), 'A suspended or banned account'),
      },
      { requestParams: { path: handle } },
    ),
  },
  '/admin/api/v1/accounts/{handle}/keys': {
    post: op(
      'adminCreateKey',
      'Create a secret or publishable key; the key is shown once',
      { '201': json(adminCreatedKeySchema, 'The key'), '400': bad, '404': accountNotFound },
      { requestParams: { path: handle }, requestBody: body(createKeySchema) },
    ),
  },
  '/admin/api/v1/keys/{id}': {
    delete: op(
      'adminRevokeKey',
      'Revoke a key; it answers 401 Invalid API key from then on',
      { '204': { description: 'Revoked' }, '404': json(errorBodySchema, 'No such key') },
      { requestParams: { path: z.object({ id: z.uuid() }) } },
    ),
    patch: op(
      'adminPatchKeyLimits',
      "Set a publishable key's budgets (null: the service default) or signed mode; every gateway sees it within the invalidation bound",
      { '200': json(adminKeySchema, "The key's settings, its signing secret included"), '400': bad, '404': json(errorBodySchema, 'No such live key') },
      { requestParams: { path: z.object({ id: z.uuid() }) }, requestBody: body(patchKeyLimitsSchema) },
    ),
  },
  '/admin/api/v1/keys/{id}/rotate': {
    post: op(
      'adminRotateKey',
      'Rotate a key in one action: a new key with the same name, domains, budgets and signing secret (shown once); the old one is revoked',
      { '201': json(adminCreatedKeySchema, 'The new key'), '404': json(errorBodySchema, 'No such live key') },
      { requestParams: { path: z.object({ id: z.uuid() }) } },
    ),
  },
  '/admin/api/v1/accounts/{handle}/permalinks': {
    post: op(
      'adminCreatePermalink',
      "Name a set of the account's images; served at /api/img/{handle}/{name}",
      { '201': json(adminPermalinkSchema, 'The permalink'), '400': bad, '404': accountNotFound },
      { requestParams: { path: handle }, requestBody: body(createPermalinkSchema) },
    ),
  },
  '/admin/api/v1/accounts/{handle}/styles': {
    post: op(
      'adminCreateStyle',
      "Create one of the account's own styles",
      { '201': json(adminStyleSchema, 'The style'), '400': bad, '404': accountNotFound },
      { requestParams: { path: handle }, requestBody: body(styleInputSchema) },
    ),
  },
  '/admin/api/v1/accounts/{handle}/characters': {
    post: op(
      'adminCreateCharacter',
      'Create a character from reference images (base64 or data: URLs) or a spec sheet, with its Match or Lock behaviour',
      { '201': json(characterSchema, 'The character'), '400': bad, '404': accountNotFound },
      { requestParams: { path: handle }, requestBody: body(createCharacterSchema) },
    ),
  },
  '/admin/api/v1/accounts/{handle}/characters/{id}': {
    patch: op(
      'adminUpdateCharacter',
      'Change a character; new images replace its references and invalidate prepared ones',
      { '200': json(characterSchema, 'The character'), '400': bad, '404': json(errorBodySchema, 'No such account or character') },
      { requestParams: { path: handle.extend({ id: z.uuid() }) }, requestBody: body(patchCharacterSchema) },
    ),
  },
  '/admin/api/v1/accounts/{handle}/analytics/export': {
    get: op(
      'adminExportAnalytics',
      "Export the account's analytics events, streamed",
      {
        '200': {
          description: 'The events, oldest first',
          content: { 'application/x-ndjson': { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } } },
        },
        '400': bad,
        '404': accountNotFound,
      },
      { requestParams: { path: handle, query: analyticsExportQuerySchema } },
    ),
  },
  '/admin/api/v1/queue': {
    get: op(
      'adminQueue',
      'Queue depth and the most recent failed jobs',
      { '200': json(adminQueueSchema, 'Depth and failed jobs') },
      { requestParams: { query: z.object({ limit: z.int().min(1).max(200).optional().meta({ description: 'How many failed jobs (default 20)' }) }) } },
    ),
  },
  '/admin/api/v1/queue/failed/{jobId}/retry': {
    post: op(
      'adminRetryFailedJob',
      'Run a failed job again with fresh attempts',
      { '202': json(adminRetriedSchema, 'Queued again'), '404': json(errorBodySchema, 'No failed job with this id is kept') },
      { requestParams: { path: z.object({ jobId: z.string() }) } },
    ),
  },
  '/admin/api/v1/failed-jobs': {
    get: op(
      'adminFailedJobs',
      'Jobs that failed for good (kept FAILED_JOB_DAYS), newest first, with reason and model',
      { '200': json(adminFailedJobPageSchema, 'A page of failed jobs'), '400': bad, '404': accountNotFound },
      {
        requestParams: {
          query: z.object({
            account: z.string().optional().meta({ description: "Only this account's (its handle)" }),
            model: z.string().optional().meta({ description: 'Only jobs that named this model id' }),
            since: z.iso.datetime({ offset: true }).optional().meta({ description: 'Failed at or after this time' }),
            limit: z.int().min(1).max(200).optional().meta({ description: 'Page size (default 50)' }),
            cursor: z.string().optional().meta({ description: 'nextCursor of the previous page' }),
          }),
        },
      },
    ),
  },
  '/admin/api/v1/failed-jobs/{jobId}/retry': {
    post: op(
      'adminRetryFailedJobAsNew',
      "Start a new job for a failed job's request, charged like any new generation; once per failed job",
      {
        '202': json(adminFailedJobRetriedSchema, 'The new job'),
        '400': bad,
        '402': json(errorBodySchema, "The account's quota is used up"),
        '403': json(errorBodySchema, 'The account is suspended or banned'),
        '404': json(errorBodySchema, 'No failed job with this id is kept'),
        '409': json(
          z.object({ error: z.string(), retriedAs: z.string().nullable().meta({ description: 'The job the earlier retry started' }) }),
          'Retried already',
        ),
      },
      { requestParams: { path: z.object({ jobId: z.string() }) } },
    ),
  },
  '/admin/api/v1/library/seed': {
    post: op('adminSeedLibrary', 'Fill an empty shared library with sample images so instant mode works on a fresh install', {
      '201': json(adminLibrarySeedSchema, 'Seeded'),
      '200': json(adminLibrarySeedSchema, 'The library already had images; nothing seeded'),
    }),
  },
};
