import { Router } from 'express';
import { ErrorMessages, upscaleBodySchema } from '@promptpix/contracts';
import { AppError, isUuid, quotaHeaders } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf, callerOf } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { parseOrThrow } from '../validate';

type Deps = Pick<GatewayDeps, 'activeJobsPerKey' | 'credentials' | 'images' | 'now' | 'rateLimiter' | 'upscales'>;

/**
 * POST /api/v1/image/:id/upscale: secret key; `{ factor: 2 | 4 }`; 202 with a job whose image is the
 * larger copy (one quota unit; the same upscale again is the stored copy, free). Another account's
 * image, or an unknown id, is a 404.
 */
export const upscaleRoutes = (deps: Deps) =>
  Router().post(
    '/api/v1/image/:id/upscale',
    authenticate(deps.credentials, { allow: 'secret' }),
    rateLimit(deps.rateLimiter, 'api', deps.now),
    async (req, res) => {
      const auth = authOf(res);
      const id = req.params.id as string;
      const { factor } = parseOrThrow(upscaleBodySchema, req.body ?? {});
      const source = isUuid(id) ? await deps.images.findOwned(id, auth.account.id) : null;
      if (!source) throw new AppError('not_found', ErrorMessages.imageNotFound);
      const started = await deps.upscales.upscale(auth.account, source, factor, { caller: callerOf(auth, deps.activeJobsPerKey) });
      res.status(202).set(quotaHeaders(started.quota)).json({ jobId: started.job.jobId, status: 'queued' });
    },
  );
