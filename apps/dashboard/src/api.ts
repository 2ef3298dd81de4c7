/**
 * The typed fetch wrapper of the dashboard: JSON in and out (and a file out, multipart), the session's CSRF token on every
 * state-changing request, 401 sends the browser to the sign-in page, and errors carry the API's
 * `{ error, details.fieldErrors }` for the form that sent them.
 */
import type { SessionView } from '@promptpix/contracts';
import { BASE, navigate } from './router';

const CSRF_HEADER = 'X-CSRF-Token';
let csrfToken: string | null = null;
let session: SessionView | null = null;

export function setSession(next: SessionView | null): void {
  session = next;
  csrfToken = next?.csrfToken ?? null;
}

export const currentSession = (): SessionView | null => session;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Paths that answer 401 as part of their normal flow: no redirect for them. */
const NO_REDIRECT = [`${BASE}/api/session`, `${BASE}/api/sign-in`];

export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return send<T>(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
}

/** One file as a multipart body under `field` (the playground's uploads); the browser writes the content type and its boundary. */
export function uploadFile<T>(path: string, field: string, file: Blob, filename: string): Promise<T> {
  const body = new FormData();
  body.append(field, file, filename);
  return send<T>('POST', path, { accept: 'application/json' }, body);
}

async function send<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, headers: Record<string, string>, body: BodyInit | undefined): Promise<T> {
  if (method !== 'GET' && csrfToken) headers[CSRF_HEADER] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'The service could not be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    if (response.status === 401 && !NO_REDIRECT.some((p) => path.startsWith(p))) {
      setSession(null);
      navigate(`${BASE}/sign-in`, { replace: true });
    }
    const failure = isRecord(data) ? data : {};
    const message = typeof failure.error === 'string' ? failure.error : `Request failed (${response.status})`;
    const details = isRecord(failure.details) ? failure.details : {};
    const fieldErrors = isRecord(details.fieldErrors) ? (details.fieldErrors as Record<string, string[]>) : {};
    throw new ApiError(response.status, message, fieldErrors);
  }
  return data as T;
}

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export const fieldError = (error: unknown, field: string): string | undefined => (error instanceof ApiError ? error.fieldErrors[field]?.join(' ') : undefined);
