import { createHash, randomBytes } from 'node:crypto';
import type { AccountStatusName } from '../account-status';

/** A bearer secret for a cookie or an e-mailed link: 32 random bytes, base64url. */
export const newSecretToken = (): string => randomBytes(32).toString('base64url');

/** Sessions and sign-in links are stored by this hash, never in clear. */
export const hashSecretToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Whether an account in this state may hold a dashboard session (pending ones see the waiting page). */
export const maySignIn = (status: AccountStatusName): boolean => status === 'approved' || status === 'pending';

export interface SessionTimes {
  expiresAt: Date;
  lastSeenAt: Date;
}

/**
 * What to do with a presented session: refuse it when expired, extend it (sliding expiry) when
 * it was last seen over `touchAfterMs` ago, else use it as is. Touching at most that often keeps
 * a busy dashboard from writing on every request.
 */
export function sessionVerdict(session: SessionTimes, now: Date, lifetimeMs: number, touchAfterMs: number): 'expired' | 'touch' | 'ok' {
  if (session.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (now.getTime() - session.lastSeenAt.getTime() >= touchAfterMs) return 'touch';
  // Keep the sliding window honest even if touchAfterMs exceeds the lifetime.
  return session.expiresAt.getTime() - now.getTime() < lifetimeMs / 2 ? 'touch' : 'ok';
}
