import { Router, type Request, type Response } from 'express';
import { AppError, isUuid } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import type { GatewayDeps } from '../../deps';
import { redirectFound } from '../redirect';
import { authenticate, authOf } from '../middleware/auth';

type Deps = Pick<GatewayDeps, 'credentials' | 'events' | 'imageFlags' | 'images' | 'invalidation' | 'jobStore' | 'storage'>;

const ONE_DAY = 24 * 3600;

export type ImageFlag = 'pin' | 'unpin' | 'reject';
type Flag = ImageFlag;
const FLAG_BODY: Record<Flag, (id: string) => object> = {
  pin: (id) => ({ id, pinned: true }),
  unpin: (id) => ({ id, pinned: false }),
  reject: (id) => ({ id, rejected: true }),
};

/**
 * Pin, unpin or reject one of an account's images: one transaction, its event, and the caches of
 * its permalinks and images evicted. Another account's image or a malformed id is a 404. Shared by
 * the public API and the dashboard.
 */
export async function applyImageFlag(
  deps: Pick<GatewayDeps, 'imageFlags' | 'events' | 'invalidation'>,
  accountId: string,
  id: string,
  flag: Flag,
): Promise<void> {
  const done = isUuid(id) && (await deps.imageFlags[flag](id, accountId));
  if (!done) throw new AppError('not_found', ErrorMessages.imageNotFound);
  if (flag !== 'unpin') deps.events.record({ accountId, eventType: flag, imageId: id });
  await deps.invalidation.publish({ kind: 'permalinks', accountId });
  await deps.invalidation.publish({ kind: 'images', accountId });
}

/** PATCH/DELETE …/pin and PATCH …/reject: one transaction each; another account's image is a 404. */
const setFlag = (deps: Deps, flag: Flag) => async (req: Request, res: Response) => {
  const id = req.params.id as string;
  await applyImageFlag(deps, authOf(res).account.id, id, flag);
  res.json(FLAG_BODY[flag](id));
};

/** GET /api/v1/image/:id: secret key; 302 to the stable file address, cacheable for a day. */
export const imageRoutes = (deps: Deps) =>
  Router()
    .patch('/api/v1/image/:id/pin', authenticate(deps.credentials, { allow: 'secret' }), setFlag(deps, 'pin'))
    .delete('/api/v1/image/:id/pin', authenticate(deps.credentials, { allow: 'secret' }), setFlag(deps, 'unpin'))
    .patch('/api/v1/image/:id/reject', authenticate(deps.credentials, { allow: 'secret' }), setFlag(deps, 'reject'))
    .get('/api/v1/image/:id', authenticate(deps.credentials, { allow: 'secret' }), async (req, res) => {
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
      redirectFound(res, location);
    });
