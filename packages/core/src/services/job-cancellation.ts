import type { ActiveJobs, InvalidationBus, SingleFlight } from '../ports/coordination';
import type { JobRecord, JobStore } from '../ports/job-store';
import type { GenerationQueue } from '../ports/queue';
import { releaseJobHolds } from './job-holds';
import type { QuotaService } from './quota-service';
import type { WebhookNotifier } from './webhook-notifier';

/** What a cancelled job reports in `error`. */
export const CANCELLED = 'cancelled';

export interface JobCancellationDeps {
  jobStore: JobStore;
  queue: Pick<GenerationQueue, 'remove'>;
  quota: Pick<QuotaService, 'refund'>;
  /** Where a derive job's place under its original's cap goes back. */
  images: { giveBackDerivedPlace(sourceId: string): Promise<void> };
  singleFlight: SingleFlight;
  activeJobs: ActiveJobs;
  /** Tells the worker running the job to stop its model call. */
  invalidation: Pick<InvalidationBus, 'publish'>;
  /** Tells the job's webhooks it ended failed ("cancelled"). */
  webhookNotifier: Pick<WebhookNotifier, 'jobFinished'>;
  now: () => Date;
}

export type CancelOutcome = { kind: 'cancelled'; job: JobRecord } | { kind: 'finished'; job: JobRecord } | { kind: 'not_found' };

export const isCancelled = (job: Pick<JobRecord, 'status' | 'error'>): boolean => job.status === 'failed' && job.error === CANCELLED;

/** What a Cancel-After header may ask for, in whole seconds (a job lives an hour). The OpenAPI document states these bounds. */
export const CANCEL_AFTER_SECONDS = { min: 1, max: 3600 } as const;

/** A Cancel-After header's deadline (CANCEL_AFTER_SECONDS). */
export function parseCancelAfter(header: string | undefined, now: Date): { cancelAt: string | null } | { error: string } {
  if (header === undefined) return { cancelAt: null };
  const { min, max } = CANCEL_AFTER_SECONDS;
  if (!/^\d{1,4}$/.test(header.trim()) || Number(header) < min || Number(header) > max)
    return { error: `Must be a whole number of seconds from ${min} to ${max}` };
  return { cancelAt: new Date(now.getTime() + Number(header) * 1000).toISOString() };
}

/**
 * Cancelling a job (README, "Cancellation and deadlines"): a queued job leaves the queue; a
 * running one is told to stop. Either way it reads `failed` with `error: "cancelled"` from now
 * on and its single-flight and per-key slots are freed. A queued job's quota unit comes back; a
 * running one's does not (DECISIONS): its model call has started and the compute is spent, as
 * hosted APIs bill it, so cancelling is no way to use the model for free. A job that already
 * finished stays as it is. Cancelling twice is harmless.
 */
export const createJobCancellation = (d: JobCancellationDeps) => ({
  /** `reason` is the job's `error` (default "cancelled"; the worker passes the account's status when it is shut out). */
  async cancel(jobId: string, accountId: string | null, reason: string = CANCELLED): Promise<CancelOutcome> {
    const job = await d.jobStore.get(jobId);
    if (!job || (accountId !== null && job.accountId !== accountId)) return { kind: 'not_found' };
    if (isCancelled(job)) return { kind: 'cancelled', job };
    if (job.status === 'completed' || job.status === 'failed') return { kind: 'finished', job };

    const cancelled = { status: 'failed' as const, error: reason, completedAt: d.now().toISOString() };
    const refunded = { ...cancelled, ...(job.quotaCharged ? { quotaCharged: false } : {}), ...(job.derivedPlace ? { derivedPlace: false } : {}) };
    // The one step that decides: of a DELETE, a deadline, the worker completing and the worker's
    // final failure, only one moves the job out of queued/processing. Still queued: refunded.
    // Taken by a worker (possibly since the read above): charged.
    const whileQueued = await d.jobStore.update(jobId, refunded, { ifStatus: ['queued'] });
    if (!whileQueued && !(await d.jobStore.update(jobId, cancelled, { ifStatus: ['processing'] }))) {
      const now = await d.jobStore.get(jobId);
      return now ? { kind: isCancelled(now) ? 'cancelled' : 'finished', job: now } : { kind: 'not_found' };
    }
    const patch = whileQueued ? refunded : cancelled;
    if (whileQueued && job.quotaCharged && job.quotaPeriodStart) await d.quota.refund(job.accountId, new Date(job.quotaPeriodStart));
    if (whileQueued && job.derivedPlace && job.deriveFrom) await d.images.giveBackDerivedPlace(job.deriveFrom);
    await releaseJobHolds(d, job);
    // Whatever status was read: a worker may have picked the job up since.
    await d.invalidation.publish({ kind: 'job-cancelled', jobId });
    await d.webhookNotifier.jobFinished(jobId);
    // Last, as a tidy-up: a worker that still takes the job finds it cancelled and skips it.
    await d.queue.remove(jobId);
    return { kind: 'cancelled', job: { ...job, ...patch } };
  },
});

export type JobCancellation = ReturnType<typeof createJobCancellation>;
