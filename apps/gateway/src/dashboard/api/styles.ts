import { Router } from 'express';
import { AppError, assertBaseStyleAllowed, isUuid, visualFamilies, type PlanName } from '@promptpix/core';
import type { StyleRepository } from '@promptpix/db';
import type { GatewayDeps } from '../../deps';
import { publicStyleEntries } from '../../http/routes/styles';
import { parseOrThrow } from '../../http/validate';
import type { OwnStyleView, StylesView } from '@promptpix/contracts';
import { signedIn } from '../session';
import { presetLocked } from './preset-lock';
import { createStyleSchema, patchStyleSchema } from '../../account-ops/style-schemas';

type Deps = Pick<GatewayDeps, 'stylePreviews' | 'styles'>;

type StyleRow = Awaited<ReturnType<StyleRepository['listOwn']>>[number];

const ownStyleView = (s: StyleRow): OwnStyleView => ({
  id: s.id,
  name: s.name,
  description: s.description,
  tags: s.tags,
  baseStyle: s.baseStyle,
  promptTemplate: s.promptTemplate,
  createdAt: s.createdAt.toISOString(),
});

const notFound = () => new AppError('not_found', 'Style not found');

/** Presets (locked where the plan may not use them), the account's own styles and their CRUD. */
export const styleRoutes = (deps: Deps) =>
  Router()
    .get('/dashboard/api/styles', async (_req, res) => {
      const { account } = signedIn(res);
      const previews = deps.stylePreviews();
      const own = await deps.styles.listOwn(account.id);
      const body: StylesView = {
        presets: publicStyleEntries(previews).map((p) => ({ ...p, tags: [...p.tags], locked: presetLocked(account.plan as PlanName, p) })),
        own: own.map(ownStyleView),
        visualFamilies: [...visualFamilies],
      };
      res.setHeader('Cache-Control', 'no-store');
      res.json(body);
    })
    .post('/dashboard/api/styles', async (req, res) => {
      const input = parseOrThrow(createStyleSchema, req.body);
      const { account } = signedIn(res);
      assertBaseStyleAllowed(account.plan as PlanName, input.baseStyle);
      const style = await deps.styles.create(account.id, input);
      res.status(201).json(ownStyleView(style));
    })
    .patch('/dashboard/api/styles/:id', async (req, res) => {
      const patch = parseOrThrow(patchStyleSchema, req.body);
      const { account } = signedIn(res);
      assertBaseStyleAllowed(account.plan as PlanName, patch.baseStyle);
      const style = isUuid(req.params.id) ? await deps.styles.update(account.id, req.params.id, patch) : null;
      if (!style) throw notFound();
      res.json(ownStyleView(style));
    })
    .delete('/dashboard/api/styles/:id', async (req, res) => {
      if (!isUuid(req.params.id) || !(await deps.styles.delete(signedIn(res).account.id, req.params.id))) throw notFound();
      res.status(204).end();
    });
