import type { RenderQuery } from './types';

export type QueryValues = Record<string, string | number | undefined>;

/**
 * The service address without a trailing slash. A path prefix is kept, so a service mounted
 * under `https://example.com/promptpix` works; a query or fragment is refused.
 */
export function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`baseUrl must use http or https, got "${url.protocol}"`);
  if (url.search || url.hash) throw new TypeError('baseUrl must not carry a query or fragment');
  return url.href.replace(/\/+$/, '');
}

/** `base + path` with the defined query values appended in the order given. */
export function buildUrl(base: string, path: string, query: QueryValues = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.append(name, String(value));
  const search = params.toString();
  return `${base}${path}${search ? `?${search}` : ''}`;
}

/** One path segment, escaped so an id can never reach another route (`../`, `?`, `#`). */
export const segment = (value: string): string => encodeURIComponent(value);

/** GET /api/v1/render with the secret key in the `key` query parameter. */
export function buildRenderUrl(base: string, apiKey: string, query: RenderQuery): string {
  const { prompt, style, character, width, height, format, age, seed, negativePrompt } = query;
  return buildUrl(base, '/api/v1/render', { prompt, style, character, width, height, format, age, seed, negativePrompt, key: apiKey });
}
