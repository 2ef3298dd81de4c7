import { createDocument } from 'zod-openapi';
import { adminApiPaths } from './paths/admin-api';
import { jobEventPaths } from './paths/job-events';
import { openAiCompatiblePaths } from './paths/openai-compatible';
import { imagesInPaths } from './paths/images-in';
import { publicApiPaths } from './paths/public-api';
import { withPreflight } from './paths/preflight';
import { servicePaths } from './paths/service';
import { outgoingWebhooks, webhookAdminPaths } from './paths/webhooks';
import { securitySchemes } from './shared';

export type OpenApiDocument = ReturnType<typeof createDocument>;

const DESCRIPTION = `Generate images from text prompts, serve them through stable URLs and named permalinks, and fill
\`<img data-service-prompt="...">\` elements on any page with \`service-client.js\`.

Send keys as \`Authorization: Bearer <key>\`. Secret keys (\`sk_live_\`) belong on servers; publishable keys
(\`pk_live_\`) may be used from browsers and reach only job, styles, embed resolve and analytics. Until an account
is approved every call answers 403 with \`code: "pending_approval"\`.

Errors are JSON with \`error\`. Bad input is a 400 whose \`details.fieldErrors\` names each field.

CORS: every \`/api/v1/\` path answers a preflight without a key. On the actual response, a key with a domain list
gets the matching origin echoed back; a key without one gets \`*\`; an origin not on the list gets 403 "Origin not allowed".`;

/**
 * The OpenAPI 3.1 description of every route the gateway registers, generated from the zod schemas
 * the handlers validate with. The OpenAPI contract test keeps the two in step.
 */
export function buildOpenApiDocument(options: { serverUrl: string; version: string }): OpenApiDocument {
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'PromptPix API', version: options.version, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: options.serverUrl }],
    tags: [
      { name: 'Generation', description: 'Start generations, poll jobs, render URLs' },
      { name: 'Images', description: 'Owned images, their flags, and permanent URLs' },
      { name: 'Styles and characters' },
      { name: 'Embed and analytics', description: 'What the page script calls' },
      { name: 'Service', description: 'Health, readiness, metrics and this reference' },
      { name: 'OpenAI-compatible', description: "OpenAI's Images API at /v1, for tools that speak it: errors in OpenAI's envelope" },
      { name: 'Operator', description: 'The operator API, authenticated with ADMIN_TOKEN' },
    ],
    paths: withPreflight({
      ...publicApiPaths,
      ...imagesInPaths,
      ...jobEventPaths,
      ...servicePaths,
      ...openAiCompatiblePaths,
      ...adminApiPaths,
      ...webhookAdminPaths,
    }),
    webhooks: outgoingWebhooks,
    components: { securitySchemes },
  });
}
