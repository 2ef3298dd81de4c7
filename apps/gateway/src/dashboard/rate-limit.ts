import type { RequestHandler } from 'express';
import { rateLimitedError, RATE_WINDOW_MS } from '../http/middleware/rate-limit';
import type { GatewayDeps } from '../deps';
import { signedIn } from './session';

/**
 * DASHBOARD_RATE_LIMIT requests a minute per signed-in account across its browsers (0: off), so
 * one session cannot load the database; generations are further bound by quota and the job cap.
 */
export const dashboardRateLimit =
  (deps: Pick<GatewayDeps, 'rateLimiter' | 'dashboard' | 'now'>): RequestHandler =>
  async (_req, res, next) => {
    const limit = deps.dashboard.requestsPerMinute;
    if (limit === 0) return next();
    const decision = await deps.rateLimiter.hit(`dashboard:${signedIn(res).account.id}`, limit, RATE_WINDOW_MS, deps.now().getTime());
    if (!decision.allowed) throw rateLimitedError(decision.retryAfterMs);
    next();
  };
