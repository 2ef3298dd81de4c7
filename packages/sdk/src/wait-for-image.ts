import { abortReason, anySignal, sleep } from './abort';
import { GenerationFailedError, TimeoutError } from './errors';
import { DEFAULT_WAIT_TIMEOUT_MS, pollDelayMs, retryDelayMs } from './poll-schedule';
import type { CompletedJob, JobView } from './types';

export interface WaitOptions {
  /** Aborting rejects at once with the signal's reason (an AbortError by default). */
  signal?: AbortSignal;
  /** Give up with a TimeoutError after this long (default 180 000 ms; Infinity waits as long as the job lives). */
  timeoutMs?: number;
  /** Called with the job after every successful poll. */
  onUpdate?: (job: JobView) => void;
}

/** Reads one job; it must reject promptly when `signal` aborts. */
export type JobReader = (jobId: string, signal: AbortSignal) => Promise<JobView>;

// setTimeout fires at once for delays above 2^31 - 1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Polls a job on the schedule of poll-schedule.ts until it completes (resolves with it) or fails
 * (GenerationFailedError). Network errors, 5xx and 429 are retried after their delay; other
 * errors (404: the job is gone) are thrown as they come.
 */
export async function waitForCompletion(readJob: JobReader, jobId: string, options: WaitOptions = {}): Promise<CompletedJob> {
  const { signal, timeoutMs = DEFAULT_WAIT_TIMEOUT_MS, onUpdate } = options;
  if (signal?.aborted) throw abortReason(signal);
  const deadline = new AbortController();
  const timer = Number.isFinite(timeoutMs) ? setTimeout(() => deadline.abort(), Math.min(Math.max(0, timeoutMs), MAX_TIMER_MS)) : undefined;
  const stop = anySignal([signal, deadline.signal]);
  let lastJob: JobView | null = null;
  try {
    let polls = 0;
    let failures = 0;
    let delay = pollDelayMs(0);
    for (;;) {
      await sleep(delay, stop.signal);
      let job: JobView;
      try {
        job = await readJob(jobId, stop.signal);
      } catch (error) {
        if (stop.signal.aborted) throw error;
        const retryIn = retryDelayMs(error, ++failures);
        if (retryIn === null) throw error;
        delay = retryIn;
        continue;
      }
      failures = 0;
      lastJob = job;
      onUpdate?.(job);
      if (job.status === 'completed') return job as CompletedJob;
      if (job.status === 'failed') throw new GenerationFailedError(job);
      delay = pollDelayMs(++polls);
    }
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal);
    if (deadline.signal.aborted) throw new TimeoutError(jobId, timeoutMs, lastJob);
    throw error;
  } finally {
    clearTimeout(timer);
    stop.dispose();
  }
}
