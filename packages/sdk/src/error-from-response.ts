import {
  AuthenticationError,
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PromptPixError,
  QuotaExceededError,
  RateLimitError,
  ServerError,
  type ErrorBody,
} from './errors';
import { quotaFromHeaders, rateLimitFromHeaders, retryAfterSeconds, type HeaderSource } from './headers';

/** A response body as JSON when it is a JSON object, otherwise null (an HTML page from a proxy, an empty body). */
export function parseErrorBody(text: string): ErrorBody | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as ErrorBody) : null;
  } catch {
    return null;
  }
}

const numberField = (body: ErrorBody | null, name: string): number | null => {
  const value = body?.[name];
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
};

const stringField = (body: ErrorBody | null, name: string): string | undefined => {
  const value = body?.[name];
  return typeof value === 'string' ? value : undefined;
};

function validationDetails(body: ErrorBody | null): { fieldErrors: Record<string, string[]>; formErrors: string[] } {
  const details = body?.details as { fieldErrors?: unknown; formErrors?: unknown } | undefined;
  const fieldErrors: Record<string, string[]> = {};
  if (typeof details?.fieldErrors === 'object' && details.fieldErrors !== null) {
    for (const [field, messages] of Object.entries(details.fieldErrors)) {
      if (Array.isArray(messages)) fieldErrors[field] = messages.filter((m): m is string => typeof m === 'string');
    }
  }
  const formErrors = Array.isArray(details?.formErrors) ? details.formErrors.filter((m): m is string => typeof m === 'string') : [];
  return { fieldErrors, formErrors };
}

/** "Invalid request: width: Must be a multiple of 64" reads better in a log than "Invalid request". */
export function describeInvalid(error: string, fieldErrors: Record<string, string[]>, formErrors: string[]): string {
  const parts = [...formErrors, ...Object.entries(fieldErrors).map(([field, messages]) => `${field}: ${messages.join(', ')}`)];
  return parts.length > 0 ? `${error}: ${parts.join('; ')}` : error;
}

/** The typed error for an HTTP error response, chosen by status. */
export function errorFromResponse(status: number, body: ErrorBody | null, headers: HeaderSource): PromptPixError {
  const message = stringField(body, 'error') ?? `HTTP ${status}`;
  const init = { status, body };
  const details = validationDetails(body);
  // 400, and 413 naming a field (an image file over the byte limit): bad input either way.
  if (status === 400 || (status === 413 && Object.keys(details.fieldErrors).length > 0)) {
    return new InvalidRequestError(describeInvalid(message, details.fieldErrors, details.formErrors), { ...init, ...details });
  }
  if (status === 401) return new AuthenticationError(message, init);
  if (status === 402) {
    const quota = quotaFromHeaders(headers);
    return new QuotaExceededError(message, {
      ...init,
      used: numberField(body, 'used') ?? quota?.used ?? null,
      limit: numberField(body, 'limit') ?? quota?.limit ?? null,
      resetAt: stringField(body, 'resetAt') ?? quota?.resetAt ?? null,
    });
  }
  if (status === 403) return new PermissionError(message, init);
  if (status === 404) return new NotFoundError(message, init);
  if (status === 409) return new ConflictError(message, init);
  if (status === 429) {
    const fromHeader = retryAfterSeconds(headers);
    const retryAfterMs = numberField(body, 'retryAfterMs') ?? (fromHeader === undefined ? null : fromHeader * 1000);
    return new RateLimitError(message, { ...init, retryAfterMs, ...rateLimitFromHeaders(headers) });
  }
  if (status >= 500) return new ServerError(message, { ...init, jobId: stringField(body, 'jobId'), retryAfter: retryAfterSeconds(headers) });
  return new PromptPixError(message, init);
}
