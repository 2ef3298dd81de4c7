import { Router } from 'express';
import { STYLE_PRESETS, tierAllows } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';

type Deps = Pick<GatewayDeps, 'credentials' | 'logger' | 'stylePreviews' | 'styles'>;

/** Styles lists: an hour fresh, a day stale (spec, Durations). */
const CACHE = 'max-age=3600, stale-while-revalidate=86400';

/** Every preset as GET /api/v1/styles/public lists it (the dashboard's gallery adds `locked`). */
export const publicStyleEntries = (previews: Record<string, string>) =>
  STYLE_PRESETS.map((p) => ({
    id: p.id,
    name: p.name,
    description: p.description,
    tags: p.tags,
    category: p.category,
    tier: p.tier,
    previewUrl: previews[p.id] ?? null,
  }));

/**
 * GET /api/v1/styles (either key): the account's own styles first, then the presets its plan
 * allows. When own styles cannot be read the answer is the presets alone, never a 500.
 * GET /api/v1/styles/public (no key): every preset with category, tier and preview.
 */
export const styleRoutes = (deps: Deps) =>
  Router()
    .get('/api/v1/styles/public', (_req, res) => {
      const styles = publicStyleEntries(deps.stylePreviews());
      res.setHeader('Cache-Control', `public, ${CACHE}`);
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.json({ styles, count: styles.length });
    })
    .get('/api/v1/styles', authenticate(deps.credentials, { allow: 'either' }), async (_req, res) => {
      const { account } = authOf(res);
      const own = await deps.styles.listOwn(account.id).catch((error: unknown) => {
        deps.logger.warn('own styles unavailable; answering with presets only', { error });
        return [];
      });
      const presets = STYLE_PRESETS.filter((p) => tierAllows(account.plan, p.tier));
      res.setHeader('Cache-Control', `private, ${CACHE}`);
      res.json({
        styles: [
          ...own.map((s) => ({ id: s.id, name: s.name, description: s.description ?? null, tags: s.tags, isPreset: false })),
          ...presets.map((p) => ({ id: p.id, name: p.name, description: p.description, tags: p.tags, isPreset: true })),
        ],
      });
    });
