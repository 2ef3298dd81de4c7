import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { auth } from '../shared';

const header = (value: string) => ({ required: true, schema: { type: 'string' as const, const: value } });

/** DECISIONS, CORS: every /api/v1/ path answers a preflight with no key. */
const preflight = (operationId: string): ZodOpenApiOperationObject => ({
  tags: ['Service'],
  operationId,
  summary: 'CORS preflight',
  description: "No key. The origin itself is checked on the actual request, against the key's domain list.",
  security: auth.none,
  responses: {
    '204': {
      description: 'Preflight allowed',
      headers: {
        'Access-Control-Allow-Origin': header('*'),
        'Access-Control-Allow-Methods': header('GET,POST,OPTIONS'),
        'Access-Control-Allow-Headers': header('Content-Type,Authorization'),
        'Access-Control-Max-Age': { required: true, schema: { type: 'integer' } },
      },
    },
  },
});

const idOf = (path: string) =>
  'preflight' +
  path
    .split(/[/{}-]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

export const withPreflight = (paths: ZodOpenApiPathsObject): ZodOpenApiPathsObject =>
  Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, path.startsWith('/api/v1/') ? { ...item, options: preflight(idOf(path)) } : item]));
