import { isJobDeferred, type GenerationJobHandler } from '@promptpix/core';
import type { Logger } from '@promptpix/runtime';

/**
 * Logs an attempt that failed and will be retried, so an operator sees a dependency failing before
 * any job ends failed (a final failure is logged by the processor's onFinalFailure).
 */
export function logRetriedAttempts(handle: GenerationJobHandler, logger: Logger): GenerationJobHandler {
  return async (payload, attempt) => {
    try {
      await handle(payload, attempt);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      // A deferred job spent no attempt: its backend was full, nothing failed.
      if (isJobDeferred(e)) throw error;
      const retried = attempt.attempt < attempt.maxAttempts && e.name !== 'PermanentJobError' && !attempt.handBack?.aborted;
      if (retried)
        logger.warn('generation attempt failed, will retry', {
          jobId: payload.jobId,
          attempt: attempt.attempt,
          maxAttempts: attempt.maxAttempts,
          error: e.message,
        });
      throw error;
    }
  };
}
