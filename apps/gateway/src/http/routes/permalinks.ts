import { Router } from 'express';
import { AppError, choosePermalinkImage, permalinkRefererAllowed } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import type { GatewayDeps } from '../../deps';

const NAME = /^[A-Za-z0-9._~-]{1,200}$/;

/**
 * GET /api/img/{handle}/{name}: the permanent public URL of a named image. No key; browsers
 * send no Origin on image loads, so the domain check reads the Referer. 302 with no-cache
 * because the answer rotates.
 */
export const permalinkRoutes = (deps: GatewayDeps) =>
  Router().get('/api/img/:handle/:name', async (req, res) => {
    const { handle, name } = req.params;
    const permalink = NAME.test(handle) && NAME.test(name) ? await deps.permalinks.findForServing(handle, name) : null;
    if (!permalink) throw new AppError('not_found', ErrorMessages.imageNotFound);
    if (!permalinkRefererAllowed(permalink.account.keys.map((k) => k.domains), req.get('referer'))) {
      throw new AppError('forbidden', ErrorMessages.originNotAllowed);
    }
    const candidates = permalink.images.map((i) => ({ imageId: i.imageId, addedAt: i.addedAt, ...i.image }));
    const hasPin = candidates.some((c) => c.pinned && !c.rejected);
    const rotation = hasPin || candidates.length <= 1 ? 0 : await deps.permalinks.advance(permalink.id);
    const chosen = choosePermalinkImage(candidates, rotation);
    if (!chosen) throw new AppError('not_found', ErrorMessages.imageNotFound);
    deps.events.record({ accountId: permalink.accountId, eventType: 'view', imageId: chosen.imageId, metadata: { permalink: name } });
    res.setHeader('Cache-Control', 'no-cache');
    res.redirect(302, deps.storage.publicUrl(chosen.storageKey));
  });
