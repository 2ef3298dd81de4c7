import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  adminWebhookDeliveriesSchema,
  adminWebhookSecretSchema,
  errorBodySchema,
  invalidRequestBodySchema,
  webhookDeliveriesQuerySchema,
} from '@promptpix/contracts';
import { auth, json } from '../shared';

/** Extension (issue 12): signed webhooks. The operator's secret and delivery log, and the requests a receiver gets. */

const handle = z.object({ handle: z.string().meta({ description: "The account's handle" }) });
const accountNotFound = json(errorBodySchema.meta({ example: { error: 'Account not found' } }), 'No account with this handle');
const unauthorized = json(errorBodySchema, 'Missing or wrong admin token');

const op = (operationId: string, summary: string, responses: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  tags: ['Operator'],
  operationId,
  summary,
  security: auth.admin,
  requestParams: { path: handle },
  ...extra,
  responses: { ...responses, '404': accountNotFound, '401': unauthorized },
});

export const webhookAdminPaths: ZodOpenApiPathsObject = {
  '/admin/api/v1/accounts/{handle}/webhook-secret': {
    get: op('adminGetWebhookSecret', "The account's webhook signing secret, made on first read", { '200': json(adminWebhookSecretSchema, 'The secret') }),
  },
  '/admin/api/v1/accounts/{handle}/webhook-secret/rotate': {
    post: op('adminRotateWebhookSecret', 'Replace the webhook secret; every later attempt, retries included, is signed with the new one', {
      '200': json(adminWebhookSecretSchema, 'The new secret'),
    }),
  },
  '/admin/api/v1/accounts/{handle}/webhooks/deliveries': {
    get: op(
      'adminListWebhookDeliveries',
      "The account's webhook delivery log, newest first: each delivery's status, attempts and last outcome",
      { '200': json(adminWebhookDeliveriesSchema, 'The deliveries'), '400': json(invalidRequestBodySchema, 'A bad limit') },
      { requestParams: { path: handle, query: webhookDeliveriesQuerySchema } },
    ),
  },
};

const signedHeaders = z.object({
  'webhook-id': z.string().meta({ description: 'The delivery id: the same on every attempt of one delivery, so a receiver can deduplicate' }),
  'webhook-timestamp': z.string().meta({ description: 'Unix seconds when this attempt was signed; refuse ones far from now', example: '1764000000' }),
  'webhook-signature': z.string().meta({
    description:
      'v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"> keyed with the base64-decoded part of the account\'s whsec_ secret (Standard Webhooks)',
    example: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  }),
});

const EXAMPLES = {
  completed: {
    jobId: '7c0e…',
    status: 'completed',
    createdAt: '2026-11-23T07:00:00.000Z',
    imageUrl: 'https://…/images/3f1c….webp',
    imageId: '…',
    completedAt: '2026-11-23T07:00:12.000Z',
    seed: 42,
  },
  failed: {
    jobId: '7c0e…',
    status: 'failed',
    createdAt: '2026-11-23T07:00:00.000Z',
    error: 'Image generation failed: …',
    completedAt: '2026-11-23T07:00:40.000Z',
  },
};

const outgoing = (operationId: string, summary: string, status: 'completed' | 'failed') => ({
  post: {
    tags: ['Generation'],
    operationId,
    summary,
    description:
      'Sent to the `webhookUrl` given to `POST /api/v1/generate`. The body is the job exactly as `GET /api/v1/job/{jobId}` shows it. ' +
      'Any 2xx acknowledges it; anything else, a timeout (WEBHOOK_TIMEOUT_MS, 10 s) or a network error is retried with exponential backoff for about a day, under the same `webhook-id`.',
    requestParams: { header: signedHeaders },
    // A plain reference: the zod schema here would be read as a request (input) shape and rename the response's Job.
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Job' }, example: EXAMPLES[status] } } },
    responses: { '2XX': { description: 'Received; not sent again' }, default: { description: 'Not received; retried later' } },
  },
});

/** OpenAPI 3.1 `webhooks`: what this service sends to a receiver. */
export const outgoingWebhooks: ZodOpenApiPathsObject = {
  jobCompleted: outgoing('webhookJobCompleted', 'A job completed', 'completed'),
  jobFailed: outgoing('webhookJobFailed', 'A job failed', 'failed'),
};
