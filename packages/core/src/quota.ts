import { ErrorMessages } from '@promptpix/contracts';
import { AppError } from './errors';
import type { PlanName } from './plans';

/** Adds calendar months, clamping to the last day of a shorter month (Jan 31 + 1 → Feb 28/29). */
export function addMonths(date: Date, months: number): Date {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}

/**
 * The rolling monthly window that contains `now`, anchored on the account's period start.
 * Windows are counted from the anchor (anchor + n months), so a window never drifts.
 */
export function currentQuotaWindow(anchor: Date, now: Date): { start: Date; resetAt: Date; rolled: boolean } {
  if (now < addMonths(anchor, 1)) return { start: anchor, resetAt: addMonths(anchor, 1), rolled: false };
  let months = Math.max(1, (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + now.getUTCMonth() - anchor.getUTCMonth() - 1);
  while (addMonths(anchor, months + 1) <= now) months++;
  while (addMonths(anchor, months) > now) months--;
  return { start: addMonths(anchor, months), resetAt: addMonths(anchor, months + 1), rolled: true };
}

export interface QuotaState {
  used: number;
  limit: number;
  resetAt: Date;
}

export const monthlyLimit = (plan: PlanName, override: number | null | undefined, defaults: Record<PlanName, number>): number => override ?? defaults[plan];

export const quotaHeaders = (q: QuotaState): Record<string, string> => ({
  'X-Quota-Used': String(q.used),
  'X-Quota-Limit': String(q.limit),
  'X-Quota-Reset': q.resetAt.toISOString(),
});

/** The spec's 402: out of generations, with the counts in the body and the quota headers. */
export const quotaExceededError = (q: QuotaState): AppError =>
  new AppError('quota_exceeded', ErrorMessages.quotaExceeded, { used: q.used, limit: q.limit, resetAt: q.resetAt.toISOString() }, quotaHeaders(q));
