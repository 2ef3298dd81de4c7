import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { auth, json } from '../shared';

/** Operational and browser-facing routes outside the interface spec. */

const dependencies = z.record(z.string(), z.enum(['ok', 'failed', 'timeout'])).meta({
  description: 'database, redis (production shape) and storage, each checked within 2 s (never an error text)',
  example: { database: 'ok', redis: 'ok', storage: 'failed' },
});
const models = z
  .record(z.string(), z.enum(['up', 'down', 'probing']))
  .optional()
  .meta({
    description:
      "Each model's backend as its circuit breaker sees it (down: jobs for it fail fast or go to its fallback; probing: one trial job may run) (docs/operating/models.md)",
    example: { procedural: 'up', 'sdxl-gpu': 'down' },
  });
const text = (type: string, description: string) => ({ description, content: { [type]: { schema: { type: 'string' as const } } } });

export const servicePaths: ZodOpenApiPathsObject = {
  '/': {
    get: {
      tags: ['Service'],
      operationId: 'home',
      summary: 'Where to go from here: the dashboard, this reference, the health check',
      security: auth.none,
      responses: {
        '200': {
          description: 'A page of links for a browser (Accept: text/html); the same links as JSON for any other client',
          content: {
            'application/json': {
              schema: z.object({
                service: z.literal('promptpix'),
                dashboard: z.url(),
                docs: z.url(),
                openapi: z.url(),
                health: z.url(),
                pageScript: z.url(),
              }),
            },
            'text/html': { schema: { type: 'string' as const } },
          },
        },
      },
    },
  },
  '/api/ready': {
    get: {
      tags: ['Service'],
      operationId: 'ready',
      summary: 'Readiness: this process takes traffic (not shutting down); a dependency outage does not change it',
      security: auth.none,
      responses: {
        '200': json(z.object({ status: z.literal('ready') }), 'Ready for traffic'),
        '503': json(z.object({ error: z.literal('Not ready'), reason: z.literal('shutting down') }), 'The process is shutting down'),
      },
    },
  },
  '/api/status': {
    get: {
      tags: ['Service'],
      operationId: 'status',
      summary: 'Dependency health as this gateway sees it (the same as promptpix_dependency_up); checks are shared between concurrent callers',
      security: auth.none,
      responses: {
        '200': json(z.object({ status: z.enum(['ok', 'degraded']), dependencies, models }), 'degraded when any dependency is not ok'),
      },
    },
  },
  '/metrics': {
    get: {
      tags: ['Service'],
      operationId: 'metrics',
      summary: 'Prometheus metrics of this gateway',
      security: [{}, { metricsToken: [] }],
      responses: {
        '200': text('text/plain', 'Prometheus text exposition format'),
        '401': json(z.object({ error: z.literal('Unauthorized') }), 'METRICS_TOKEN is set and was not given'),
      },
    },
  },
  '/service-client.js': {
    get: {
      tags: ['Embed and analytics'],
      operationId: 'serviceClientScript',
      summary: 'The page script that fills <img data-service-prompt> elements',
      description: 'Include it with `<script src="{base_url}/service-client.js" data-key="pk_live_..."></script>`. Cached five minutes, with an ETag.',
      security: auth.none,
      responses: { '200': text('text/javascript', 'The script'), '304': { description: 'Not modified (If-None-Match)' } },
    },
  },
  '/demo': {
    get: {
      tags: ['Service'],
      operationId: 'demoPage',
      summary: 'A page that uses the page script with a publishable key (not served when NODE_ENV=production)',
      security: auth.none,
      requestParams: { query: z.object({ key: z.string().optional().meta({ description: 'A publishable key' }) }) },
      responses: { '200': text('text/html', 'The page') },
    },
  },
  '/files/{file}': {
    get: {
      tags: ['Service'],
      operationId: 'localFile',
      summary: 'An image file on local disk (embedded storage only)',
      description: 'Content-addressed and immutable: cached for a year. With S3 storage, image URLs point at the bucket or CDN instead.',
      security: auth.none,
      requestParams: { path: z.object({ file: z.string().meta({ example: 'images/3f2a....webp' }) }) },
      responses: {
        '200': {
          description: 'The image',
          content: {
            'image/webp': { schema: { type: 'string', format: 'binary' } },
            'image/png': { schema: { type: 'string', format: 'binary' } },
            'image/jpeg': { schema: { type: 'string', format: 'binary' } },
          },
        },
        '404': json(z.object({ error: z.string() }), 'No such file'),
      },
    },
  },
  '/api/openapi.json': {
    get: {
      tags: ['Service'],
      operationId: 'openApiDocument',
      summary: 'This document',
      security: auth.none,
      responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  },
  '/docs': {
    get: {
      tags: ['Service'],
      operationId: 'referencePage',
      summary: 'The API reference page (this document, rendered)',
      security: auth.none,
      responses: {
        '200': text('text/html', 'The page'),
        '301': {
          description: '`/docs/` (with a trailing slash) moves to `/docs`, where the relative URLs of the page resolve',
          headers: {
            Location: {
              description: '`../docs`, relative so a path prefix in front of the service is kept',
              required: true,
              schema: { type: 'string', format: 'uri-reference' },
            },
          },
        },
      },
    },
  },
  '/docs/assets/{file}': {
    get: {
      tags: ['Service'],
      operationId: 'referencePageAsset',
      summary: "The reference page's scripts and styles (bundled from npm; nothing loads from other hosts)",
      security: auth.none,
      requestParams: { path: z.object({ file: z.string() }) },
      responses: { '200': { description: 'A script, style sheet or icon' }, '404': json(z.object({ error: z.string() }), 'No such asset') },
    },
  },
};
