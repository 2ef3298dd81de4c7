import { AppError, type InvalidationMessage } from '@promptpix/core';

export interface StreamLimits {
  /** JOB_STREAMS_PER_KEY */
  perKey: number;
  /** JOB_STREAMS_PER_ACCOUNT */
  perAccount: number;
}

export interface OpenStream {
  /** Frees the stream's place; call once it has ended, however it ended. */
  release(): void;
}

/**
 * The job event streams this gateway holds open, by key and account. An open stream costs a
 * socket and a store read every tick, so each key and account has a cap (429 beyond it), and a
 * revoked key's or a changed account's streams end at once: the browser's EventSource reconnects
 * and authenticates again, so a suspended account or a revoked key gets its 403/401 there, and a
 * mere plan change costs one reconnect.
 */
export function createOpenStreams(limits: StreamLimits) {
  const byKey = new Map<string, Set<() => void>>();
  const byAccount = new Map<string, Set<() => void>>();
  const add = (index: Map<string, Set<() => void>>, id: string, stop: () => void) => {
    const set = index.get(id) ?? new Set();
    set.add(stop);
    index.set(id, set);
  };
  const remove = (index: Map<string, Set<() => void>>, id: string, stop: () => void) => {
    const set = index.get(id);
    set?.delete(stop);
    if (set?.size === 0) index.delete(id);
  };

  return {
    /** Takes a place for a stream that `stop` ends, or throws 429 when its key or account is at its cap (a dashboard session has no key). */
    open(keyId: string | null, accountId: string, stop: () => void): OpenStream {
      if (keyId !== null && (byKey.get(keyId)?.size ?? 0) >= limits.perKey)
        throw new AppError('rate_limited', 'Too many open job event streams for this key', { retryAfterMs: 5000 }, { 'Retry-After': '5' });
      if ((byAccount.get(accountId)?.size ?? 0) >= limits.perAccount)
        throw new AppError('rate_limited', 'Too many open job event streams for this account', { retryAfterMs: 5000 }, { 'Retry-After': '5' });
      if (keyId !== null) add(byKey, keyId, stop);
      add(byAccount, accountId, stop);
      return {
        release() {
          if (keyId !== null) remove(byKey, keyId, stop);
          remove(byAccount, accountId, stop);
        },
      };
    },
    /** Ends the streams a credentials change concerns. */
    invalidate(message: InvalidationMessage): void {
      const stops = message.kind === 'key' ? byKey.get(message.keyId) : message.kind === 'account' ? byAccount.get(message.accountId) : undefined;
      for (const stop of [...(stops ?? [])]) stop();
    },
    count: (keyId: string) => byKey.get(keyId)?.size ?? 0,
  };
}

export type OpenStreams = ReturnType<typeof createOpenStreams>;
