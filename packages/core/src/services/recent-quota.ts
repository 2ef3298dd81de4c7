import type { QuotaState } from '../quota';
import type { QuotaAccount } from './quota-service';
import { createByteBoundedMap } from './byte-bounded-map';

/** Bytes of one remembered account: its id, the promise and the state it settles to (estimated). */
const ENTRY_BYTES = 400;

/**
 * The quota as headers on cache hits show it (README, "Quota headers on cache hits"), read at
 * most once per account every `ttlMs`: a render served from the cache then needs no database
 * round trip. The headers may lag a generation made in that window; the quota itself is always
 * enforced by the atomic reservation, never by this.
 */
export function createRecentQuota(peek: (account: QuotaAccount) => Promise<QuotaState>, o: { ttlMs?: number; now?: () => number; maxBytes?: number } = {}) {
  const ttlMs = o.ttlMs ?? 1000;
  const now = o.now ?? Date.now;
  const recent = createByteBoundedMap<{ state: Promise<QuotaState>; expiresAt: number }>({ maxBytes: o.maxBytes ?? 2 ** 20, sizeOf: () => ENTRY_BYTES });

  return (account: QuotaAccount): Promise<QuotaState> => {
    const hit = recent.get(account.id);
    if (hit && hit.expiresAt > now()) return hit.state;
    // Concurrent misses share one read; a failed read is not remembered.
    const state = peek(account);
    recent.set(account.id, { state, expiresAt: now() + ttlMs });
    state.catch(() => recent.delete(account.id));
    return state;
  };
}
