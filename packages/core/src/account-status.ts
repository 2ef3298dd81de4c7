import { ErrorMessages } from '@promptpix/contracts';
import { AppError } from './errors';

export type AccountStatusName = 'pending' | 'approved' | 'suspended' | 'banned';

/** The error an account in this state gets on every keyed call, or null when it may proceed. */
export function accountStatusError(status: AccountStatusName): AppError | null {
  switch (status) {
    case 'approved':
      return null;
    case 'pending':
      return new AppError('forbidden', ErrorMessages.pendingApproval, { code: 'pending_approval' });
    case 'suspended':
      return new AppError('forbidden', ErrorMessages.suspended);
    case 'banned':
      return new AppError('forbidden', ErrorMessages.banned);
  }
}

/**
 * A suspended or banned account is shut out everywhere, not only at its keys: its permalinks stop
 * serving (404) and its queued jobs are not run (failed, refunded).
 */
export const isShutOut = (status: AccountStatusName): boolean => status === 'suspended' || status === 'banned';
