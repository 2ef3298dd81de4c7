import { abortReason } from './abort';
import { ConnectionError, PromptPixError } from './errors';
import { errorFromResponse, parseErrorBody } from './error-from-response';
import { buildUrl, type QueryValues } from './urls';

export interface TransportConfig {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
}

export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: QueryValues;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as multipart/form-data (fetch writes the boundary); instead of `body`. */
  form?: FormData;
  /** Send the key (default true); only the public styles list goes without. */
  authenticated?: boolean;
  redirect?: RequestRedirect;
  signal?: AbortSignal;
  /** Extra request headers (Idempotency-Key, Cancel-After; Accept for an event stream). */
  headers?: Record<string, string>;
}

/** Sends requests the API's way: Bearer key, JSON bodies (multipart for files), typed errors for every 4xx/5xx. */
export function createTransport(config: TransportConfig) {
  /** The raw response of a call; statuses of 400 and above are thrown as typed errors. */
  async function send(call: Call): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (call.authenticated !== false) headers.authorization = `Bearer ${config.apiKey}`;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await config.fetch(buildUrl(config.baseUrl, call.path, call.query), {
        method: call.method,
        headers,
        body: call.form ?? (call.body === undefined ? undefined : JSON.stringify(call.body)),
        redirect: call.redirect,
        signal: call.signal,
      });
    } catch (error) {
      if (call.signal?.aborted) throw abortReason(call.signal);
      throw new ConnectionError(`${call.method} ${call.path} failed: ${(error as Error)?.message ?? String(error)}`, error);
    }
    if (response.status >= 400) throw errorFromResponse(response.status, parseErrorBody(await readText(response, call)), response.headers);
    return response;
  }

  /** A call whose answer is JSON: the parsed body with the response headers. */
  async function json<T>(call: Call): Promise<{ data: T; headers: Headers }> {
    const response = await send(call);
    const text = await readText(response, call);
    try {
      return { data: JSON.parse(text) as T, headers: response.headers };
    } catch (error) {
      throw new PromptPixError(`${call.method} ${call.path}: the response is not JSON (HTTP ${response.status})`, {
        status: response.status,
        body: null,
        cause: error,
      });
    }
  }

  return { send, json };
}

/** The body as text; a connection dropped mid-body is a ConnectionError, an abort rejects with its reason. */
async function readText(response: Response, call: Call): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    if (call.signal?.aborted) throw abortReason(call.signal);
    throw new ConnectionError(`${call.method} ${call.path}: the response body could not be read`, error);
  }
}

export type Transport = ReturnType<typeof createTransport>;
