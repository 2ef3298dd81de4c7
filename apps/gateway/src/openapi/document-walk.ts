import type { OpenApiDocument } from './document';

/** Reading helpers over the built document (used by its tests and the response validator). */

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export const methodsOf = (item: unknown): string[] => HTTP_METHODS.filter((m) => (item as Record<string, unknown>)?.[m] !== undefined);

/** A node of the document read as JSON: an object whose members are checked where they are used. */
export type JsonObject = { [key: string]: unknown };

export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null;

/** Follows a local `$ref` ("#/components/..."); anything else is returned as it is. */
export function resolveRef(doc: OpenApiDocument, value: unknown): unknown {
  let current = value;
  while (isJsonObject(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#/')) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (isJsonObject(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
  }
  return current;
}

export const findOperation = (doc: OpenApiDocument, method: string, path: string): JsonObject | undefined => {
  const item: unknown = doc.paths?.[path];
  const operation = isJsonObject(item) ? item[method.toLowerCase()] : undefined;
  return isJsonObject(operation) ? operation : undefined;
};

/** "/api/v1/job/:jobId" → "/api/v1/job/{jobId}" */
export const expressToOpenApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');
