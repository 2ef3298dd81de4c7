import { type JobRecord, type JobStore, PermanentJobError, type QuotaService, redactAddresses } from '@promptpix/core';
import type { FailedJobRepository, ImageRepository } from '@promptpix/db';
import type { Logger } from '@promptpix/runtime';

/**
 * A final failure's refund is tried this often, the waits doubling from REFUND_FIRST_WAIT_MS
 * (about 30 s in all): the job already reads failed with its unit marked refunded, so a database
 * outage at that moment must not keep the unit spent.
 */
export const REFUND_ATTEMPTS = 7;
export const REFUND_FIRST_WAIT_MS = 500;

/** What a caller reads in `error` when a job fails for good: never an internal service's address (the worker's log has the full error). */
export function readableFailure(error: Error): string {
  if (error instanceof PermanentJobError) return redactAddresses(error.message);
  return redactAddresses(`Image generation failed: ${error.message}`).slice(0, 500);
}

export interface RefundUnitInput {
  quota: Pick<QuotaService, 'refund'>;
  logger: Logger;
}

/** Gives a failed job's quota unit back, retrying through a database outage; never throws (the job's other closing steps still run). */
export async function refundUnit(d: RefundUnitInput, jobId: string, accountId: string, periodStart: Date): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await d.quota.refund(accountId, periodStart);
      if (attempt > 1) d.logger.info('quota refund landed after retries', { jobId, attempt });
      return;
    } catch (error) {
      if (attempt >= REFUND_ATTEMPTS) {
        d.logger.error('quota refund lost', { jobId, accountId, periodStart: periodStart.toISOString(), attempts: attempt, error });
        return;
      }
      d.logger.warn('quota refund failed, will retry', { jobId, attempt, error });
      await new Promise((resolve) => setTimeout(resolve, REFUND_FIRST_WAIT_MS * 2 ** (attempt - 1)));
    }
  }
}

export interface FailJobInput {
  jobStore: Pick<JobStore, 'get' | 'update'>;
  images: Pick<ImageRepository, 'giveBackDerivedPlace'>;
  /** The durable list of failed jobs (operators, dashboard). */
  failedJobs: Pick<FailedJobRepository, 'record'>;
  /** The model a job that named none ran on (the failed-jobs listing). */
  defaultModelId: string;
  /** The closing steps: the quota unit back, and the job's holds and webhooks. */
  refund(jobId: string, accountId: string, periodStart: Date): Promise<void>;
  releaseAndNotify(job: JobRecord): Promise<void>;
  logger: Logger;
  now: () => Date;
}

/** Attempts exhausted: the job ends failed with a readable error and its quota unit comes back. */
export async function failJob(d: FailJobInput, jobId: string, error: Error): Promise<void> {
  const job = await d.jobStore.get(jobId);
  if (!job || job.status === 'completed' || job.status === 'failed') return;
  const refund = job.quotaCharged && job.quotaPeriodStart;
  const place = job.derivedPlace && job.deriveFrom;
  const reason = readableFailure(error);
  const failedAt = d.now();
  // As in cancellation: only the step that moves the job out of queued/processing refunds.
  const failed = await d.jobStore.update(
    jobId,
    {
      status: 'failed',
      error: reason,
      completedAt: failedAt.toISOString(),
      ...(refund ? { quotaCharged: false } : {}),
      ...(place ? { derivedPlace: false } : {}),
    },
    { ifStatus: ['queued', 'processing'] },
  );
  if (!failed) return;
  if (refund) await d.refund(job.jobId, job.accountId, new Date(job.quotaPeriodStart!));
  if (place)
    await d.images.giveBackDerivedPlace(place).catch((e: unknown) => d.logger.warn('could not give back a derived-size place', { jobId: job.jobId, error: e }));
  await d.releaseAndNotify(job);
  // Kept past the job store's hour for operators and the dashboard; a lost row loses only the listing.
  await d.failedJobs
    .record({
      jobId: job.jobId,
      accountId: job.accountId,
      model: job.request.model ?? d.defaultModelId,
      reason,
      request: job.request,
      createdAt: new Date(job.createdAt),
      failedAt,
    })
    .catch((e: unknown) => d.logger.warn('could not record a failed job', { jobId: job.jobId, error: e }));
}
