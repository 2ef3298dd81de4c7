import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, type ErrorKind } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import type { Logger } from '@promptpix/runtime';
import { isDependencyOutage } from './dependency-outage';

/** The one table from error kind to HTTP status. */
export const STATUS_OF: Record<ErrorKind, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  quota_exceeded: 402,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  upstream_failed: 502,
  internal: 500,
};

/** body-parser errors that are the caller's fault, by their `type`. */
function fromParserError(error: { type?: string; status?: number }): AppError | null {
  switch (error.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_request', ErrorMessages.invalidJson);
    case 'entity.too.large':
      return new AppError('payload_too_large', ErrorMessages.payloadTooLarge);
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.size.invalid':
    case 'entity.verify.failed':
    case 'request.aborted':
      return new AppError('invalid_request', ErrorMessages.invalidJson);
    default:
      // Other client errors raised by Express itself (a malformed %-escape in a path, ...).
      return typeof error.status === 'number' && error.status >= 400 && error.status < 500
        ? new AppError('invalid_request', ErrorMessages.invalidRequest, { details: { formErrors: ['Malformed request'], fieldErrors: {} } })
        : null;
  }
}

export const notFound = (): RequestHandler => (_req, _res, next) => next(new AppError('not_found', ErrorMessages.notFound));

/**
 * Any error a handler throws, as the AppError the caller is told: the handler's own, a body
 * parser's complaint, a dependency outage (503), or else an internal error (logged).
 */
export function toAppError(error: unknown, logger: Logger): AppError {
  let known = error instanceof AppError ? error : fromParserError((error ?? {}) as { type?: string; status?: number });
  if (!known && isDependencyOutage(error)) {
    logger.warn('dependency unavailable', { error });
    known = new AppError('unavailable', ErrorMessages.serviceUnavailable, {}, { 'Retry-After': '5' });
  }
  if (!known) logger.error('unhandled error', { error });
  return known ?? new AppError('internal', ErrorMessages.internal);
}

export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (error, _req, res, _next) => {
    const appError = toAppError(error, logger);
    if (res.headersSent) return res.end();
    res.status(STATUS_OF[appError.kind]);
    for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
    res.json({ error: appError.message, ...appError.body });
  };
