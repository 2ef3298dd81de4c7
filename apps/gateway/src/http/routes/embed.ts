import { Router } from 'express';
import { embedResolveBodySchema } from '@promptpix/contracts';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf, callerOf, publishableCallerOf } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { parseOrThrow } from '../validate';

type Deps = Pick<GatewayDeps, 'activeJobsPerKey' | 'credentials' | 'embed' | 'logger' | 'now' | 'publishableBudget' | 'publishableIpRateLimit' | 'rateLimiter'>;

/** POST /api/v1/embed/resolve: either key (browsers use a publishable one), rate limited. */
export const embedRoutes = (deps: Deps) =>
  Router().post(
    '/api/v1/embed/resolve',
    authenticate(deps.credentials, { allow: 'either' }),
    rateLimit(deps.rateLimiter, 'api', deps.now, deps.publishableIpRateLimit),
    async (req, res) => {
      const { elements } = parseOrThrow(embedResolveBodySchema, req.body);
      const auth = authOf(res);
      const results = await deps.embed.resolve(
        auth.account,
        elements,
        (error) => deps.logger.error('embed element failed', { error }),
        callerOf(auth, deps.activeJobsPerKey),
        publishableCallerOf(auth, req.ip, deps.publishableBudget),
      );
      res.setHeader('Cache-Control', 'no-store');
      res.json({ results });
    },
  );
