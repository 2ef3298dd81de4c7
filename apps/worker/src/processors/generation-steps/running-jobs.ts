import type { JobCancellation } from '@promptpix/core';
import type { Logger } from '@promptpix/runtime';

export interface RunningJobsInput {
  cancellation: Pick<JobCancellation, 'cancel'>;
  logger: Logger;
}

/** The jobs this process is running, so a cancellation (DELETE, or the job's deadline) can stop their model calls. */
export function createRunningJobs(d: RunningJobsInput) {
  const running = new Map<string, AbortController>();

  /** Runs `work` under an abort signal that a cancel of this job fires; a deadline `msLeft` away cancels it. */
  async function guard(jobId: string, msLeft: number, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    running.set(jobId, controller);
    // The deadline cancels through the same path as DELETE, which then aborts this run.
    const deadline = Number.isFinite(msLeft)
      ? setTimeout(() => void d.cancellation.cancel(jobId, null).catch((error: unknown) => d.logger.warn('deadline cancel failed', { jobId, error })), msLeft)
      : undefined;
    try {
      await work(controller.signal);
    } finally {
      clearTimeout(deadline);
      running.delete(jobId);
    }
  }

  /** Stops this process's run of a cancelled job, if it has one. */
  const abort = (jobId: string): void => running.get(jobId)?.abort();

  return { guard, abort };
}
