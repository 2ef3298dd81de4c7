import type { Caller, PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import type { DashboardAccountRow } from '../session';

/**
 * Work the dashboard starts (regenerate, preview) takes slots of the account's cap on jobs in
 * progress like a key does: one pseudo-key per account, at the plan's per-key cap.
 */
export const dashboardCaller = (deps: Pick<GatewayDeps, 'activeJobsPerKey'>, account: DashboardAccountRow): Caller => ({
  keyId: `dashboard:${account.id}`,
  activeJobLimit: deps.activeJobsPerKey[account.plan as PlanName],
});
