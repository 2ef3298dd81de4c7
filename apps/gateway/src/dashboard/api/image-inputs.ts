import { Router } from 'express';
import { ErrorMessages, type UpscaleAccepted, upscaleBodySchema } from '@promptpix/contracts';
import { AppError, isUuid, type PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { receiveUpload } from '../../http/routes/uploads';
import { parseOrThrow } from '../../http/validate';
import { signedIn } from '../session';
import { dashboardCaller, hitPlaygroundRateLimit } from './account';

type Deps = Pick<GatewayDeps, 'activeJobsPerKey' | 'images' | 'now' | 'rateLimiter' | 'uploadSlots' | 'uploads' | 'upscales'>;

/**
 * The playground's images in: an upload (the image to edit, or its mask) as POST /api/v1/uploads
 * takes it, and an upscale as POST /api/v1/image/:id/upscale makes it, through the same functions;
 * both under the plan's rate limit in the account's own bucket, as the playground's generations.
 */
export const imageInputRoutes = (deps: Deps) =>
  Router()
    .post('/dashboard/api/uploads', async (req, res) => {
      const { account } = signedIn(res);
      await hitPlaygroundRateLimit(deps, account, res);
      const { upload, created } = await receiveUpload(deps, req, account.id);
      res.status(created ? 201 : 200).json(upload);
    })
    .post('/dashboard/api/images/:id/upscale', async (req, res) => {
      const { account } = signedIn(res);
      await hitPlaygroundRateLimit(deps, account, res);
      const { factor } = parseOrThrow(upscaleBodySchema, req.body ?? {});
      const source = isUuid(req.params.id) ? await deps.images.findOwned(req.params.id, account.id) : null;
      if (!source) throw new AppError('not_found', ErrorMessages.imageNotFound);
      const started = await deps.upscales.upscale({ ...account, plan: account.plan as PlanName }, source, factor, { caller: dashboardCaller(deps, account) });
      const { quota } = started;
      const accepted: UpscaleAccepted = {
        jobId: started.job.jobId,
        quota: { used: quota.used, limit: quota.limit, resetAt: quota.resetAt.toISOString() },
      };
      res.status(202).json(accepted);
    });
