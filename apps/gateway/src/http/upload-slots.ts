import { AppError } from '@promptpix/core';

export const UploadSlotMessages = {
  account: 'Too many uploads in progress for this account; send one when another has finished',
  busy: 'Too many uploads in progress; retry in a moment',
} as const;

export interface UploadSlotLimits {
  /** Image bodies read and decoded at once by this process (each up to 25 MiB, and 64 MB decoded). */
  perProcess: number;
  /** Of those, at most this many for one account, so one account's uploads never fill the process. */
  perAccount: number;
}

/**
 * Bounds the memory that image bodies take in one gateway: a request that would pass either limit is
 * refused before its body is read (429 for the account's own limit, 503 with Retry-After when the
 * process is full). Counted in process: each gateway bounds its own memory.
 */
export function createUploadSlots(limits: UploadSlotLimits) {
  let inUse = 0;
  const byAccount = new Map<string, number>();
  return {
    /** Takes a slot for `accountId`, or throws; the returned function gives it back (once). */
    take(accountId: string): () => void {
      const held = byAccount.get(accountId) ?? 0;
      if (held >= limits.perAccount) throw new AppError('rate_limited', UploadSlotMessages.account, {}, { 'Retry-After': '1' });
      if (inUse >= limits.perProcess) throw new AppError('unavailable', UploadSlotMessages.busy, {}, { 'Retry-After': '1' });
      inUse++;
      byAccount.set(accountId, held + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        inUse--;
        const left = (byAccount.get(accountId) ?? 1) - 1;
        if (left === 0) byAccount.delete(accountId);
        else byAccount.set(accountId, left);
      };
    },
    inUse: () => inUse,
  };
}

export type UploadSlots = ReturnType<typeof createUploadSlots>;
