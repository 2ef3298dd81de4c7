import { Router } from 'express';
import { AppError, isUuid } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';

const ONE_DAY = 24 * 3600;

/** GET /api/v1/image/:id: secret key; 302 to the stable file address, cacheable for a day. */
export const imageRoutes = (deps: GatewayDeps) =>
  Router().get('/api/v1/image/:id', authenticate(deps.apiKeys, { allow: 'secret' }), async (req, res) => {
    const id = req.params.id as string;
    const accountId = authOf(res).account.id;
    if (!isUuid(id)) throw new AppError('not_found', ErrorMessages.imageNotFound);

    // Fast path: the job that made the image still holds its URL; no database read.
    const jobId = typeof req.query.jobId === 'string' ? req.query.jobId : undefined;
    let location: string | undefined;
    if (jobId && /^[A-Za-z0-9-]{1,100}$/.test(jobId)) {
      const job = await deps.jobStore.get(jobId);
      if (job && job.accountId === accountId && job.imageId === id && job.imageUrl) location = job.imageUrl;
    }
    if (!location) {
      const image = await deps.images.findOwned(id, accountId);
      if (!image) throw new AppError('not_found', ErrorMessages.imageNotFound);
      location = deps.storage.publicUrl(image.storageKey);
    }
    res.setHeader('Cache-Control', `private, max-age=${ONE_DAY}`);
    res.redirect(302, location);
  });
