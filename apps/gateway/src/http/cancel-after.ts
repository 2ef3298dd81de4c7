import type { Request } from 'express';
import { fieldError, parseCancelAfter } from '@promptpix/core';
import type { GatewayDeps } from '../deps';

export const CANCEL_AFTER_HEADER = 'Cancel-After';

/** The deadline a Cancel-After header asks for (ISO), or null; a malformed one is a 400 naming the header. */
export function cancelAtOf(req: Request, now: Date): string | null {
  const parsed = parseCancelAfter(req.get(CANCEL_AFTER_HEADER), now);
  if ('error' in parsed) throw fieldError(CANCEL_AFTER_HEADER, parsed.error);
  return parsed.cancelAt;
}

/**
 * The gateway's half of a deadline: the job record carries `cancelAt`, which the worker running
 * the job enforces (also after this process is gone); this timer cancels a job still waiting in
 * the queue when it passes. Cancelling a finished job does nothing, so the timer needs no clean-up.
 */
export function watchDeadline(deps: Pick<GatewayDeps, 'cancellation' | 'logger' | 'now'>, jobId: string, cancelAt: string): void {
  const timer = setTimeout(
    () => {
      deps.cancellation.cancel(jobId, null).catch((error: unknown) => deps.logger.warn('Cancel-After deadline could not cancel the job', { jobId, error }));
    },
    Math.max(0, Date.parse(cancelAt) - deps.now().getTime()),
  );
  timer.unref();
}
