/**
 * What every provider adapter shares: one deadline per generate() call (AbortSignal.timeout
 * combined with the caller's signal), bounded retries with exponential backoff on 408/429/5xx
 * and network errors (Retry-After honoured), and errors turned into readable messages:
 * `<provider>: HTTP <status>: <provider's message>`.
 */
import { loadSharp } from '../sharp';
import { TransientModelError, type ModelImage } from '@promptpix/core';
import { PermanentModelError } from './errors';

export interface RetryOptions {
  /** Tries per HTTP request, the first included. Default 3. */
  attempts?: number;
  /** First backoff delay in ms; doubles on each retry, with jitter. Default 500. */
  baseDelayMs?: number;
  /** Longest backoff delay in ms (Retry-After may ask for longer). Default 8000. */
  maxDelayMs?: number;
}

const DEFAULT_RETRY: Required<RetryOptions> = { attempts: 3, baseDelayMs: 500, maxDelayMs: 8000 };

/** Largest response body we read (an image download or a JSON body holding base64 images). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface CallOptions {
  /** Prefix of every error message: `openai`, `replicate`, `a1111`. */
  provider: string;
  /** The longest one generate() call may take, retries, polling and downloads included. */
  timeoutMs: number;
  retry?: RetryOptions;
  /** Pulls the provider's own message out of an error body (already parsed as JSON). */
  errorMessage: (body: unknown) => string | undefined;
}

/** One generate() call: every request and wait in it uses `signal`. */
export interface Call {
  readonly provider: string;
  readonly signal: AbortSignal;
  readonly deadline: number;
  readonly retry: Required<RetryOptions>;
  readonly errorMessage: CallOptions['errorMessage'];
}

/**
 * Runs `work` under a deadline of `timeoutMs` combined with the caller's signal. A caller's abort
 * rejects with the signal's reason; the deadline passing rejects with a TransientModelError.
 */
export async function withCall<T>(options: CallOptions, callerSignal: AbortSignal | undefined, work: (call: Call) => Promise<T>): Promise<T> {
  callerSignal?.throwIfAborted();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
  const call: Call = {
    provider: options.provider,
    signal,
    deadline: Date.now() + options.timeoutMs,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    errorMessage: options.errorMessage,
  };
  try {
    return await work(call);
  } catch (error) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (timeout.aborted) throw new TransientModelError(`${options.provider}: no result within ${options.timeoutMs} ms`, { cause: error });
    throw error;
  }
}

export interface HttpRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Reusable across retries: a string (JSON) or FormData. */
  body?: string | FormData;
}

/** Sends a request (with the call's retries) and parses the 2xx answer as JSON. */
export function requestJson(call: Call, request: HttpRequest): Promise<unknown> {
  return send(call, request, async (response) => {
    const text = (await readBody(call, response)).toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new TransientModelError(`${call.provider}: expected JSON from ${pathOf(request.url)}, got: ${snippet(text)}`);
    }
  });
}

/** Fetches bytes: an http(s) URL (with the call's retries) or a `data:` URL. */
export async function requestBytes(call: Call, request: HttpRequest): Promise<Buffer> {
  if (request.url.startsWith('data:')) return decodeDataUrl(call, request.url);
  return send(call, request, (response) => readBody(call, response));
}

/** Reads the size of an encoded image; bytes that do not decode are a (retryable) model failure. */
export async function toModelImage(provider: string, data: Buffer): Promise<ModelImage> {
  try {
    const { width, height } = await loadSharp()(data, { failOn: 'error' }).metadata();
    if (!width || !height) throw new Error('no dimensions');
    return { data, width, height };
  } catch (error) {
    throw new TransientModelError(`${provider}: the returned image cannot be decoded (${(error as Error).message})`, { cause: error });
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `https://host/v1/` and `https://host` both become `https://host`: paths are added with /v1. */
export const apiRoot = (baseUrl: string): string => baseUrl.trim().replace(/\/+$/, '').replace(/\/v1$/, '');

export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/** Retry-After as seconds or an HTTP date, or OpenAI's `retry-after-ms`; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter: attempt 1 waits about base, then 2×base, 4×base … up to max. */
export function backoffMs(retry: Required<RetryOptions>, attempt: number): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

async function send<T>(call: Call, request: HttpRequest, read: (response: Response) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let failure: TransientModelError;
    let waitMs: number | undefined;
    try {
      const response = await fetch(request.url, { method: request.method ?? 'GET', headers: request.headers, body: request.body, signal: call.signal });
      if (response.ok) return await read(response);
      const message = `${call.provider}: HTTP ${response.status}: ${await describeErrorBody(call, response)}`;
      if (!isRetryableStatus(response.status)) throw new PermanentModelError(message, { status: response.status });
      failure = new TransientModelError(message);
      waitMs = retryAfterMs(response.headers);
    } catch (error) {
      if (call.signal.aborted || error instanceof PermanentModelError || error instanceof TransientModelError) throw error;
      failure = new TransientModelError(`${call.provider}: network error calling ${pathOf(request.url)}: ${networkCause(error)}`, { cause: error });
    }
    if (attempt >= call.retry.attempts) throw failure;
    const wait = waitMs ?? backoffMs(call.retry, attempt);
    // Waiting past the deadline cannot help: leave the retry to the job queue.
    if (Date.now() + wait >= call.deadline) throw failure;
    await sleep(wait, call.signal);
  }
}

async function readBody(call: Call, response: Response): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) {
    await response.body?.cancel();
    throw new PermanentModelError(`${call.provider}: response of ${declared} bytes is larger than ${MAX_BODY_BYTES}`);
  }
  const data = Buffer.from(await response.arrayBuffer());
  if (data.length > MAX_BODY_BYTES) throw new PermanentModelError(`${call.provider}: response of ${data.length} bytes is larger than ${MAX_BODY_BYTES}`);
  return data;
}

async function describeErrorBody(call: Call, response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  let message: string | undefined;
  try {
    message = call.errorMessage(JSON.parse(text));
  } catch {
    // Not JSON (a proxy's HTML page, plain text): show the start of it.
  }
  return message?.trim() || snippet(text) || response.statusText || 'no message';
}

function decodeDataUrl(call: Call, url: string): Buffer {
  const comma = url.indexOf(',');
  if (comma < 0) throw new TransientModelError(`${call.provider}: malformed data URL in the response`);
  const meta = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  return meta.endsWith(';base64') ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'utf8');
}

const networkCause = (error: unknown): string => {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return cause.message || (cause as { code?: string }).code || cause.name;
  return error instanceof Error ? error.message : String(error);
};

const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
};

const snippet = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 300);

/** Headers for fetching an output URL: our credentials only go back to the API's own origin. */
export function downloadHeaders(url: string, apiBase: string, auth: Record<string, string>): Record<string, string> {
  try {
    return new URL(url).origin === new URL(apiBase).origin ? auth : {};
  } catch {
    return {};
  }
}
