import type { QuotaState } from '../quota';
import type { QuotaAccount } from './quota-service';

/**
 * The quota as headers on cache hits show it (README, "Quota headers on cache hits"), read at
 * most once per account every `ttlMs`: a render served from the cache then needs no database
 * round trip. The headers may lag a generation made in that window; the quota itself is always
 * enforced by the atomic reservation, never by this.
 */
export function createRecentQuota(peek: (account: QuotaAccount) => Promise<QuotaState>, o: { ttlMs?: number; now?: () => number; maxEntries?: number } = {}) {
  const ttlMs = o.ttlMs ?? 1000;
  const now = o.now ?? Date.now;
  const maxEntries = o.maxEntries ?? 10_000;
  const recent = new Map<string, { state: Promise<QuotaState>; expiresAt: number }>();

  return (account: QuotaAccount): Promise<QuotaState> => {
    const hit = recent.get(account.id);
    if (hit && hit.expiresAt > now()) return hit.state;
    // Concurrent misses share one read; a failed read is not remembered.
    const state = peek(account);
    recent.set(account.id, { state, expiresAt: now() + ttlMs });
    state.catch(() => recent.delete(account.id));
    if (recent.size > maxEntries) recent.delete(recent.keys().next().value as string);
    return state;
  };
}
