import { Router } from 'express';
import { AppError } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import type { GatewayDeps } from '../../deps';
import { redirectFound } from '../redirect';

type Deps = Pick<GatewayDeps, 'events' | 'permalinkCache' | 'storage'>;

const NAME = /^[A-Za-z0-9._~-]{1,200}$/;

/**
 * GET /api/img/{handle}/{name}: the permanent public URL of a named image. No key; browsers
 * send no Origin on image loads, so the domain check reads the Referer. 302 with no-cache
 * because the answer rotates. Served from the in-process permalink cache.
 */
export const permalinkRoutes = (deps: Deps) =>
  Router().get('/api/img/:handle/:name', async (req, res) => {
    const { handle, name } = req.params;
    const decision = NAME.test(handle) && NAME.test(name) ? await deps.permalinkCache.serve(handle, name, req.get('referer')) : { kind: 'not_found' as const };
    if (decision.kind === 'blocked') throw new AppError('forbidden', ErrorMessages.originNotAllowed);
    if (decision.kind === 'not_found') throw new AppError('not_found', ErrorMessages.imageNotFound);
    deps.events.record({ accountId: decision.accountId, eventType: 'view', imageId: decision.image.imageId, metadata: { permalink: name } });
    res.setHeader('Cache-Control', 'no-cache');
    redirectFound(res, deps.storage.publicUrl(decision.image.storageKey));
  });
