import type { Response } from 'express';
import type { Caller, PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { hitPlanRateLimit } from '../../http/middleware/rate-limit';
import type { DashboardAccountRow } from '../session';

/**
 * Work the dashboard starts (regenerate, preview) takes slots of the account's cap on jobs in
 * progress like a key does: one pseudo-key per account, at the plan's per-key cap.
 */
export const dashboardCaller = (deps: Pick<GatewayDeps, 'activeJobsPerKey'>, account: DashboardAccountRow): Caller => ({
  keyId: `dashboard:${account.id}`,
  activeJobLimit: deps.activeJobsPerKey[account.plan as PlanName],
});

/**
 * What the playground sends that the public API would count (generations, uploads, upscales) is under
 * the plan's rate limit, in a bucket of the account's own (`api:dashboard:<account>`), as each key has its own.
 */
export const hitPlaygroundRateLimit = (
  deps: Pick<GatewayDeps, 'activeJobsPerKey' | 'now' | 'rateLimiter'>,
  account: DashboardAccountRow,
  res: Response,
): Promise<void> => hitPlanRateLimit(deps.rateLimiter, `api:${dashboardCaller(deps, account).keyId}`, account.plan as PlanName, deps.now().getTime(), res);
