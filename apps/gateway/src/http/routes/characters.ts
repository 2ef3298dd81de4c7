import { Router } from 'express';
import { AppError } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';

type Deps = Pick<GatewayDeps, 'characters' | 'credentials' | 'logger'>;

/** GET /api/v1/characters: secret key; never the reference images, only how many originals. */
export const characterRoutes = (deps: Deps) =>
  Router().get('/api/v1/characters', authenticate(deps.credentials, { allow: 'secret' }), async (_req, res) => {
    const rows = await deps.characters.list(authOf(res).account.id).catch((error: unknown) => {
      deps.logger.error('characters unavailable', { error });
      throw new AppError('internal', 'Failed to fetch characters');
    });
    res.setHeader('Cache-Control', 'private, max-age=300, stale-while-revalidate=3600');
    res.json({ characters: rows.map((c) => ({ id: c.id, name: c.name, description: c.description, referenceCount: c._count.references })) });
  });
