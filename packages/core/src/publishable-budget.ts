/**
 * What a publishable key may spend (README, docs/api/embed.md "Publishable keys: budgets and
 * signed prompts"): fresh generations started through a publishable key count against fixed
 * hourly and daily windows per client address and per key, apart from the account's monthly
 * quota. Cache hits, joins, variants, instant and shortcut elements never count.
 */

export interface PublishableBudget {
  clientPerHour: number;
  clientPerDay: number;
  keyPerHour: number;
  keyPerDay: number;
}

export type BudgetName = keyof PublishableBudget;

/** A key's own settings; null (or absent) falls back to the service default. */
export type BudgetOverrides = { [K in BudgetName]?: number | null };

/** Defaults that fill a real page's images on first view but stop a flood. */
export const DEFAULT_PUBLISHABLE_BUDGET: PublishableBudget = { clientPerHour: 30, clientPerDay: 100, keyPerHour: 100, keyPerDay: 300 };

export const BUDGET_NAMES: BudgetName[] = ['clientPerHour', 'clientPerDay', 'keyPerHour', 'keyPerDay'];

/** The upper bound of any one setting (a key with no practical limit): part of the key-limits contract. */
export { MAX_BUDGET } from '@promptpix/contracts';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** Per-key daily counters outlive their day so the owner sees the last week. */
export const KEY_DAY_HISTORY_DAYS = 8;

export const effectiveBudget = (defaults: PublishableBudget, overrides: BudgetOverrides): PublishableBudget => ({
  clientPerHour: overrides.clientPerHour ?? defaults.clientPerHour,
  clientPerDay: overrides.clientPerDay ?? defaults.clientPerDay,
  keyPerHour: overrides.keyPerHour ?? defaults.keyPerHour,
  keyPerDay: overrides.keyPerDay ?? defaults.keyPerDay,
});

/** One fixed-window counter: its key names the window, so a new window starts at zero. */
export interface BudgetWindow {
  name: BudgetName;
  counter: string;
  limit: number;
  /** How long the counter is kept (at least its window). */
  ttlMs: number;
}

/** The counter of a key's fresh generations on the UTC day holding `atMs` (also the dashboard's figure). */
export const keyDayCounter = (keyId: string, atMs: number): string => `budget:key:${keyId}:d:${Math.floor(atMs / DAY_MS)}`;

/** The four windows one fresh generation counts against, for this key and client address at `nowMs`. */
export function budgetWindows(keyId: string, client: string, budget: PublishableBudget, nowMs: number): BudgetWindow[] {
  const hour = Math.floor(nowMs / HOUR_MS);
  const day = Math.floor(nowMs / DAY_MS);
  return [
    { name: 'clientPerHour', counter: `budget:client:${keyId}:${client}:h:${hour}`, limit: budget.clientPerHour, ttlMs: HOUR_MS },
    { name: 'clientPerDay', counter: `budget:client:${keyId}:${client}:d:${day}`, limit: budget.clientPerDay, ttlMs: DAY_MS },
    { name: 'keyPerHour', counter: `budget:key:${keyId}:h:${hour}`, limit: budget.keyPerHour, ttlMs: HOUR_MS },
    { name: 'keyPerDay', counter: keyDayCounter(keyId, nowMs), limit: budget.keyPerDay, ttlMs: KEY_DAY_HISTORY_DAYS * DAY_MS },
  ];
}

/** The failed element's error when `name` is spent: says which budget, and that cached images still work. */
export const budgetExceededMessage = (name: BudgetName): string =>
  `Publishable key budget exhausted (${name === 'clientPerHour' || name === 'keyPerHour' ? 'hourly' : 'daily'}, per ${name.startsWith('client') ? 'client' : 'key'}): no new generation was started; images that already exist still resolve`;

/** Prompts on a signed-mode key without a valid signature: they resolve only from the cache. */
export const UNSIGNED_PROMPT_MESSAGE = 'This key only starts generations for signed prompts (data-service-sig): no image exists yet for this prompt';
export const BAD_SIGNATURE_MESSAGE = 'sig: Signature does not match the prompt, style and size';
