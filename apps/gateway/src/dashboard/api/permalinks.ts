import { Router } from 'express';
import { pinnedPermalinkImage } from '@promptpix/core';
import type { PermalinkRepository } from '@promptpix/db';
import type { GatewayDeps } from '../../deps';
import { permalinkUrl } from '../../account-ops/permalinks';
import type { PermalinkView } from '@promptpix/contracts';
import { signedIn } from '../session';
import { escapeHtml } from '../../http/html';

type Deps = Pick<GatewayDeps, 'permalinks' | 'publicBaseUrl' | 'storage'>;

type PermalinkRow = Awaited<ReturnType<PermalinkRepository['listForAccount']>>[number];

export function permalinkView(deps: Pick<GatewayDeps, 'publicBaseUrl' | 'storage'>, handle: string, row: PermalinkRow): PermalinkView {
  const url = permalinkUrl(deps.publicBaseUrl, handle, row.name);
  const candidates = row.images.map(({ addedAt, image }) => ({ ...image, imageId: image.id, addedAt }));
  const live = candidates.filter((i) => !i.rejected);
  return {
    name: row.name,
    url,
    pinnedImageId: pinnedPermalinkImage(candidates)?.id ?? null,
    images: live.map((i) => ({ id: i.id, url: deps.storage.publicUrl(i.storageKey), prompt: i.prompt, createdAt: i.createdAt.toISOString() })),
    snippet: `<img src="${escapeHtml(url)}" alt="${escapeHtml(row.name)}">`,
  };
}

/** GET /dashboard/api/permalinks: the account's permalinks with their images. */
export const permalinkRoutes = (deps: Deps) =>
  Router().get('/dashboard/api/permalinks', async (_req, res) => {
    const { account } = signedIn(res);
    const rows = await deps.permalinks.listForAccount(account.id);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ permalinks: rows.map((row) => permalinkView(deps, account.handle, row)) });
  });
