import type { PlanName } from '@promptpix/contracts';

export { plans, type PlanName } from '@promptpix/contracts';

/** Requests per minute per key (spec, Limits). */
export const RATE_LIMIT_PER_MINUTE: Record<PlanName, number> = {
  free: 30,
  hobby: 60,
  pro: 120,
  business: 300,
  enterprise: 600,
};

/**
 * Default cap on jobs queued or running per key (README, "Abuse limits"); configurable per plan.
 * Joined generations and cache hits do not count, only work a worker must do. One embed call may
 * start up to 50 generations, so this (not the per-minute rate limit) bounds a copied publishable key.
 */
export const DEFAULT_ACTIVE_JOBS_PER_KEY: Record<PlanName, number> = {
  free: 20,
  hobby: 50,
  pro: 100,
  business: 200,
  enterprise: 500,
};

/** Default monthly generations; free is fixed by the spec, the others are configurable. */
export const DEFAULT_MONTHLY_GENERATIONS: Record<PlanName, number> = {
  free: 100,
  hobby: 1000,
  pro: 5000,
  business: 20000,
  enterprise: 100000,
};
