import { Router } from 'express';
import { analyticsBodySchema } from '@promptpix/contracts';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { parseOrThrow } from '../validate';

type Deps = Pick<GatewayDeps, 'credentials' | 'events' | 'now' | 'publishableIpRateLimit' | 'rateLimiter'>;

/**
 * POST /api/v1/analytics/events: 202 at once. Events are buffered and written in batches off the
 * request path; when the store fails the batch is dropped and logged, the caller still got 202.
 */
export const analyticsRoutes = (deps: Deps) =>
  Router().post(
    '/api/v1/analytics/events',
    authenticate(deps.credentials, { allow: 'either' }),
    rateLimit(deps.rateLimiter, 'analytics', deps.now, deps.publishableIpRateLimit),
    (req, res) => {
      const { events } = parseOrThrow(analyticsBodySchema, req.body);
      const { account } = authOf(res);
      for (const event of events) {
        deps.events.record({ accountId: account.id, eventType: event.eventType, imageId: event.imageId ?? null, metadata: event.metadata ?? null });
      }
      res.status(202).json({ accepted: events.length });
    },
  );
