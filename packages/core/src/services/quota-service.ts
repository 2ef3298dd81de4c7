import type { PlanName } from '../plans';
import { currentQuotaWindow, monthlyLimit, type QuotaState } from '../quota';

export interface QuotaAccount {
  id: string;
  plan: PlanName;
  monthlyGenerations: number | null;
  quotaUsed: number;
  quotaPeriodStart: Date;
}

/** Storage side of the quota: each call is one atomic statement. */
export interface QuotaStore {
  /** Starts a new window (used = 0) if the account is still on `from`. */
  rollWindow(accountId: string, from: Date, to: Date): Promise<void>;
  /** used += 1 if used < limit and the window is `periodStart`; returns the new used, or null. */
  reserve(accountId: string, periodStart: Date, limit: number): Promise<number | null>;
  /** used -= 1 (not below 0) if the window is still `periodStart`. */
  refund(accountId: string, periodStart: Date): Promise<void>;
  /** Fresh counter and window of an account. */
  read(accountId: string): Promise<{ quotaUsed: number; quotaPeriodStart: Date } | null>;
}

export type Reservation = { ok: true; state: QuotaState; periodStart: Date } | { ok: false; state: QuotaState };

/**
 * Generation quota on a rolling monthly window (spec, Generation quota). A reservation is one
 * conditional UPDATE, so concurrent requests can never push `used` above `limit`.
 */
export const createQuotaService = (d: { store: QuotaStore; monthlyGenerations: Record<PlanName, number>; now: () => Date }) => {
  const limitOf = (account: QuotaAccount) => monthlyLimit(account.plan, account.monthlyGenerations, d.monthlyGenerations);

  async function windowOf(account: QuotaAccount) {
    const window = currentQuotaWindow(account.quotaPeriodStart, d.now());
    if (window.rolled) await d.store.rollWindow(account.id, account.quotaPeriodStart, window.start);
    return window;
  }

  return {
    /**
     * The account's quota as headers show it, rolling the window forward if it has passed. Reads
     * the counter fresh: the account snapshot may come from the credentials cache.
     */
    async peek(account: QuotaAccount): Promise<QuotaState> {
      const fresh = (await d.store.read(account.id)) ?? account;
      const window = await windowOf({ ...account, ...fresh });
      return { used: window.rolled ? 0 : fresh.quotaUsed, limit: limitOf(account), resetAt: window.resetAt };
    },

    async reserve(account: QuotaAccount): Promise<Reservation> {
      const limit = limitOf(account);
      for (let attempt = 0; attempt < 2; attempt++) {
        const window = await windowOf(account);
        const used = await d.store.reserve(account.id, window.start, limit);
        if (used !== null) return { ok: true, state: { used, limit, resetAt: window.resetAt }, periodStart: window.start };
        const fresh = await d.store.read(account.id);
        if (!fresh) break;
        // Another process may have rolled the window meanwhile: retry once on the fresh one.
        if (fresh.quotaPeriodStart.getTime() === window.start.getTime() || attempt === 1) {
          return { ok: false, state: { used: Math.min(fresh.quotaUsed, limit), limit, resetAt: window.resetAt } };
        }
        account = { ...account, ...fresh };
      }
      return { ok: false, state: { used: limit, limit, resetAt: currentQuotaWindow(account.quotaPeriodStart, d.now()).resetAt } };
    },

    /**
     * The window and limit a reservation made elsewhere (with the render-cache lookup) uses, and
     * the Reservation its new `used` stands for. Rolls the window forward if it has passed.
     */
    async claim(account: QuotaAccount): Promise<{ periodStart: Date; limit: number; reserved(used: number): Reservation & { ok: true } }> {
      const limit = limitOf(account);
      const window = await windowOf(account);
      return {
        periodStart: window.start,
        limit,
        reserved: (used) => ({ ok: true, state: { used, limit, resetAt: window.resetAt }, periodStart: window.start }),
      };
    },

    refund: (accountId: string, periodStart: Date) => d.store.refund(accountId, periodStart),
  };
};

export type QuotaService = ReturnType<typeof createQuotaService>;
