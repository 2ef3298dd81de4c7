import type { JobView } from './types';

/**
 * A parsed JSON error body, as received (not validated): per the spec `error` says what went
 * wrong and some bodies carry more fields (`code`, `details`, `used`, `retryAfterMs`, `jobId`).
 */
export type ErrorBody = Record<string, unknown>;

export interface ErrorInit {
  /** HTTP status of the error response; 0 when the failure is not an error response. */
  status: number;
  body: ErrorBody | null;
  cause?: unknown;
}

/**
 * Base of every error the SDK throws (except the caller's own abort reason). `status` is the
 * HTTP status, or 0 for failures that did not come as an error response (network, a failed
 * job, a timeout). `code` is the body's `code` ('pending_approval' is the only one to branch on).
 */
export class PromptPixError extends Error {
  readonly status: number;
  readonly body: ErrorBody | null;
  readonly code: string | undefined;

  constructor(message: string, init: ErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    // Keeps `instanceof` working when a compiler lowers classes to ES5 functions.
    Object.setPrototypeOf(this, new.target.prototype);
    // Set explicitly in each class: minifiers rename classes, so `constructor.name` is unreliable.
    this.name = 'PromptPixError';
    this.status = init.status;
    this.body = init.body;
    this.code = typeof init.body?.code === 'string' ? init.body.code : undefined;
  }
}

/** 400: bad input. `fieldErrors` names each failing field (e.g. `{ width: ['Must be a multiple of 64'] }`). */
export class InvalidRequestError extends PromptPixError {
  readonly fieldErrors: Record<string, string[]>;
  readonly formErrors: string[];

  constructor(message: string, init: ErrorInit & { fieldErrors: Record<string, string[]>; formErrors: string[] }) {
    super(message, init);
    this.name = 'InvalidRequestError';
    this.fieldErrors = init.fieldErrors;
    this.formErrors = init.formErrors;
  }
}

/** 401: missing or invalid key (a revoked key too). */
export class AuthenticationError extends PromptPixError {
  constructor(message: string, init: ErrorInit) {
    super(message, init);
    this.name = 'AuthenticationError';
  }
}

/** 402: out of generations until `resetAt`. */
export class QuotaExceededError extends PromptPixError {
  readonly used: number | null;
  readonly limit: number | null;
  /** ISO 8601 timestamp of the next reset. */
  readonly resetAt: string | null;

  constructor(message: string, init: ErrorInit & { used: number | null; limit: number | null; resetAt: string | null }) {
    super(message, init);
    this.name = 'QuotaExceededError';
    this.used = init.used;
    this.limit = init.limit;
    this.resetAt = init.resetAt;
  }
}

/**
 * 403: account not approved (`pendingApproval`; retrying does not help), suspended or banned,
 * a publishable key on a secret-only endpoint, or an origin not on the key's domain list.
 */
export class PermissionError extends PromptPixError {
  readonly pendingApproval: boolean;

  constructor(message: string, init: ErrorInit) {
    super(message, init);
    this.name = 'PermissionError';
    this.pendingApproval = this.code === 'pending_approval';
  }
}

/** 404: unknown, expired, or owned by another account (the API does not tell these apart). */
export class NotFoundError extends PromptPixError {
  constructor(message: string, init: ErrorInit) {
    super(message, init);
    this.name = 'NotFoundError';
  }
}

/** 409: an Idempotency-Key reused with another body, or the same request still in progress (retry shortly). */
export class ConflictError extends PromptPixError {
  constructor(message: string, init: ErrorInit) {
    super(message, init);
    this.name = 'ConflictError';
  }
}

/** 429: over the per-minute rate limit; wait `retryAfterMs` before the next call. */
export class RateLimitError extends PromptPixError {
  readonly retryAfterMs: number | null;
  /** From X-RateLimit-Limit / X-RateLimit-Remaining. */
  readonly limit: number | null;
  readonly remaining: number | null;

  constructor(message: string, init: ErrorInit & { retryAfterMs: number | null; limit: number | null; remaining: number | null }) {
    super(message, init);
    this.name = 'RateLimitError';
    this.retryAfterMs = init.retryAfterMs;
    this.limit = init.limit;
    this.remaining = init.remaining;
  }
}

/**
 * 5xx: a service fault; retry. A 503 from render carries the `jobId` still generating and
 * `retryAfter` (seconds, from the Retry-After header).
 */
export class ServerError extends PromptPixError {
  readonly jobId: string | undefined;
  readonly retryAfter: number | undefined;

  constructor(message: string, init: ErrorInit & { jobId?: string; retryAfter?: number }) {
    super(message, init);
    this.name = 'ServerError';
    this.jobId = init.jobId;
    this.retryAfter = init.retryAfter;
  }
}

/** The request never got an HTTP response (DNS, refused connection, reset, CORS refusal in a browser). */
export class ConnectionError extends PromptPixError {
  constructor(message: string, cause: unknown) {
    super(message, { status: 0, body: null, cause });
    this.name = 'ConnectionError';
  }
}

/** A job ended `failed`; `job.error` says why. Start a new generation to try again. */
export class GenerationFailedError extends PromptPixError {
  readonly job: JobView;

  constructor(job: JobView) {
    super(job.error ?? 'Image generation failed', { status: 0, body: job });
    this.name = 'GenerationFailedError';
    this.job = job;
  }
}

/** waitForImage gave up after `timeoutMs`; the job may still finish (poll it with `job()`). */
export class TimeoutError extends PromptPixError {
  readonly jobId: string;
  readonly timeoutMs: number;
  /** The last state seen, or null when no poll answered in time. */
  readonly lastJob: JobView | null;

  constructor(jobId: string, timeoutMs: number, lastJob: JobView | null) {
    super(`Job ${jobId} did not finish within ${timeoutMs} ms`, { status: 0, body: null });
    this.name = 'TimeoutError';
    this.jobId = jobId;
    this.timeoutMs = timeoutMs;
    this.lastJob = lastJob;
  }
}
