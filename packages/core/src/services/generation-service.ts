import { ErrorMessages, type GenerationRequest } from '@promptpix/contracts';
import { AppError } from '../errors';
import type { GenerationQueue } from '../ports/queue';
import type { JobRecord, JobStore } from '../ports/job-store';
import { quotaHeaders, type QuotaState } from '../quota';
import type { QuotaAccount, QuotaService } from './quota-service';

export const JOB_TTL_SECONDS = 3600;

export interface GenerationServiceDeps {
  jobStore: JobStore;
  queue: GenerationQueue;
  quota: QuotaService;
  now: () => Date;
  newId: () => string;
  onError: (message: string, error: unknown) => void;
}

/**
 * Starting a generation: reserve a quota unit, write the job record, enqueue its id.
 * When the queue or job store fails, the unit is refunded and the caller gets a 503.
 */
export const createGenerationService = (d: GenerationServiceDeps) => ({
  async start(account: QuotaAccount, request: GenerationRequest): Promise<{ job: JobRecord; quota: QuotaState }> {
    const reservation = await d.quota.reserve(account);
    if (!reservation.ok) {
      const { used, limit, resetAt } = reservation.state;
      throw new AppError('quota_exceeded', ErrorMessages.quotaExceeded, { used, limit, resetAt: resetAt.toISOString() }, quotaHeaders(reservation.state));
    }
    const job: JobRecord = {
      jobId: d.newId(),
      accountId: account.id,
      status: 'queued',
      createdAt: d.now().toISOString(),
      request,
      quotaCharged: true,
      quotaPeriodStart: reservation.periodStart.toISOString(),
    };
    try {
      await d.jobStore.create(job, JOB_TTL_SECONDS);
      await d.queue.enqueue({ v: 1, jobId: job.jobId });
    } catch (error) {
      d.onError('could not enqueue a generation; quota unit refunded', error);
      await d.quota.refund(account.id, reservation.periodStart).catch((e) => d.onError('quota refund failed', e));
      await d.jobStore.update(job.jobId, { status: 'failed', error: 'The job could not be queued', completedAt: d.now().toISOString() }).catch(() => false);
      throw new AppError('unavailable', ErrorMessages.serviceUnavailable, {}, { 'Retry-After': '5' });
    }
    return { job, quota: reservation.state };
  },
});

export type GenerationService = ReturnType<typeof createGenerationService>;
