/** Domain errors carry a kind; the gateway maps kind → HTTP status in one table. */
export type ErrorKind =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'quota_exceeded'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unavailable'
  | 'upstream_failed'
  | 'internal';

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Extra fields for the JSON body (details, code, used/limit/resetAt, ...). */
    readonly body: Record<string, unknown> = {},
    /** Extra response headers (quota, Retry-After, ...). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** 400 with the spec's `details: { formErrors, fieldErrors }` for one field. */
export const fieldError = (field: string, message: string): AppError =>
  new AppError('invalid_request', 'Invalid request', { details: { formErrors: [], fieldErrors: { [field]: [message] } } });
