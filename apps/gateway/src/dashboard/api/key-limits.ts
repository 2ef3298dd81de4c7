import { Router } from 'express';
import { AppError, DAY_MS, isUuid, keyDayCounter } from '@promptpix/core';
import type { KeyLimits } from '@promptpix/db';
import type { GatewayDeps } from '../../deps';
import { rotateAccountKey, updateKeyLimits } from '../../account-ops/keys';
import { parseOrThrow } from '../../http/validate';
import { patchKeyLimitsSchema, type KeyCreated, type KeyLimitsView } from '@promptpix/contracts';
import { signedIn } from '../session';
import { keyView } from './keys';

type Deps = Pick<GatewayDeps, 'apiKeys' | 'budget' | 'invalidation' | 'logger' | 'maxKeysPerAccount' | 'now' | 'publishableBudget'>;

const HISTORY_DAYS = 7;

type Row = KeyLimits & { id: string; kind: string; signingSecret: string | null; budgetHitAt: Date | null };

/**
 * A publishable key's budgets, signed mode and what it spent (docs/dashboard.md): the per-day
 * figures are the budget counters themselves, read in one call.
 */
async function limitsView(deps: Deps, row: Row): Promise<KeyLimitsView> {
  const today = Math.floor(deps.now().getTime() / DAY_MS);
  const days = Array.from({ length: HISTORY_DAYS }, (_, i) => today - HISTORY_DAYS + 1 + i);
  const counts = await deps.budget.read(days.map((day) => keyDayCounter(row.id, day * DAY_MS)));
  const d = deps.publishableBudget;
  return {
    id: row.id,
    budgetClientPerHour: row.budgetClientPerHour,
    budgetClientPerDay: row.budgetClientPerDay,
    budgetKeyPerHour: row.budgetKeyPerHour,
    budgetKeyPerDay: row.budgetKeyPerDay,
    defaults: { budgetClientPerHour: d.clientPerHour, budgetClientPerDay: d.clientPerDay, budgetKeyPerHour: d.keyPerHour, budgetKeyPerDay: d.keyPerDay },
    signedPrompts: row.signedPrompts,
    signingSecret: row.signingSecret,
    budgetHitAt: row.budgetHitAt?.toISOString() ?? null,
    freshByDay: days.map((day, i) => ({ date: new Date(day * DAY_MS).toISOString().slice(0, 10), count: counts[i] })),
  };
}

/** Budgets and signed mode apply to publishable keys only; anything else of the account is a 404 here. */
async function publishableKeyOf(deps: Deps, accountId: string, id: string): Promise<Row> {
  const row = isUuid(id) ? (await deps.apiKeys.listActive(accountId)).find((k) => k.id === id) : undefined;
  if (row?.kind !== 'publishable') throw new AppError('not_found', 'Key not found');
  return row;
}

export const keyLimitRoutes = (deps: Deps) =>
  Router()
    .get('/dashboard/api/keys/:id/limits', async (req, res) => {
      const row = await publishableKeyOf(deps, signedIn(res).account.id, req.params.id);
      res.setHeader('Cache-Control', 'no-store');
      res.json(await limitsView(deps, row));
    })
    .patch('/dashboard/api/keys/:id/limits', async (req, res) => {
      const accountId = signedIn(res).account.id;
      const patch = parseOrThrow(patchKeyLimitsSchema, req.body);
      await publishableKeyOf(deps, accountId, req.params.id);
      const row = await updateKeyLimits(deps, req.params.id, patch, accountId);
      res.setHeader('Cache-Control', 'no-store');
      res.json(await limitsView(deps, { ...row, kind: 'publishable' }));
    })
    .post('/dashboard/api/keys/:id/rotate', async (req, res) => {
      const rotated = await rotateAccountKey(deps, req.params.id, signedIn(res).account.id);
      const body: KeyCreated = { key: keyView(rotated), secret: rotated.key };
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json(body);
    });
