import type { RequestHandler } from 'express';
import { AppError, RATE_LIMIT_PER_MINUTE, type RateLimiter } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import { authOf } from './auth';

export const RATE_WINDOW_MS = 60_000;

/**
 * Per-key sliding one-minute window at the plan's ceiling (spec, Rate limits). `api` covers
 * generate, render and embed resolve; analytics counts in a bucket of its own.
 */
export const rateLimit = (limiter: RateLimiter, bucket: 'api' | 'analytics', now: () => Date): RequestHandler => async (_req, res, next) => {
  const { keyId, account } = authOf(res);
  const limit = RATE_LIMIT_PER_MINUTE[account.plan];
  const decision = await limiter.hit(`${bucket}:${keyId}`, limit, RATE_WINDOW_MS, now().getTime());
  res.setHeader('X-RateLimit-Limit', String(decision.limit));
  res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
  if (!decision.allowed) {
    throw new AppError('rate_limited', ErrorMessages.rateLimited, { retryAfterMs: decision.retryAfterMs }, { 'Retry-After': String(Math.ceil(decision.retryAfterMs / 1000)) });
  }
  next();
};
