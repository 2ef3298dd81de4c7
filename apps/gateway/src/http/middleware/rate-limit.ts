import type { RequestHandler, Response } from 'express';
import { AppError, RATE_LIMIT_PER_MINUTE, type PlanName, type RateLimiter } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import { authOf } from './auth';

export const RATE_WINDOW_MS = 60_000;

/** 429 in the public API's shape, with Retry-After. */
export const rateLimitedError = (retryAfterMs: number) =>
  new AppError('rate_limited', ErrorMessages.rateLimited, { retryAfterMs }, { 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) });

/**
 * One request against `bucket`'s sliding minute at the plan's ceiling: the X-RateLimit-* headers on
 * `res`, and a 429 once it is spent.
 */
export async function hitPlanRateLimit(limiter: RateLimiter, bucket: string, plan: PlanName, at: number, res: Response): Promise<void> {
  const decision = await limiter.hit(bucket, RATE_LIMIT_PER_MINUTE[plan], RATE_WINDOW_MS, at);
  res.setHeader('X-RateLimit-Limit', String(decision.limit));
  res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
  if (!decision.allowed) throw rateLimitedError(decision.retryAfterMs);
}

/**
 * Per-key sliding one-minute window at the plan's ceiling (spec, Rate limits). `api` covers
 * generate, render and embed resolve; analytics counts in a bucket of its own. With
 * `perIpForPublishable` > 0, a publishable key is also limited per client IP (README, "Abuse
 * limits"): its domain list is a speed bump, not security, so one visitor cannot spend the
 * whole key's allowance.
 */
export const rateLimit =
  (limiter: RateLimiter, bucket: 'api' | 'analytics', now: () => Date, perIpForPublishable = 0): RequestHandler =>
  async (req, res, next) => {
    const { keyId, kind, account } = authOf(res);
    const at = now().getTime();
    await hitPlanRateLimit(limiter, `${bucket}:${keyId}`, account.plan, at, res);
    if (kind === 'publishable' && perIpForPublishable > 0) {
      const perIp = await limiter.hit(`${bucket}:${keyId}:ip:${req.ip ?? 'unknown'}`, perIpForPublishable, RATE_WINDOW_MS, at);
      if (!perIp.allowed) throw rateLimitedError(perIp.retryAfterMs);
    }
    next();
  };
