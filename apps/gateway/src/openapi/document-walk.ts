import type { OpenApiDocument } from './document';

/** Reading helpers over the built document (used by its tests and the response validator). */

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export const methodsOf = (item: unknown): string[] => HTTP_METHODS.filter((m) => (item as Record<string, unknown>)?.[m] !== undefined);

/** Follows a local `$ref` ("#/components/..."); anything else is returned as it is. */
export function resolveRef(doc: OpenApiDocument, value: any): any {
  let current = value;
  while (current && typeof current.$ref === 'string' && current.$ref.startsWith('#/')) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node: any, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current;
}

export const findOperation = (doc: OpenApiDocument, method: string, path: string): any => (doc.paths?.[path] as any)?.[method.toLowerCase()];

/** "/api/v1/job/:jobId" → "/api/v1/job/{jobId}" */
export const expressToOpenApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');
