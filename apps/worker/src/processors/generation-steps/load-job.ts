import type { AccountRepository } from '@promptpix/db';
import { accountStatusError, isShutOut, type JobCancellation, type JobRecord, type JobStore, PermanentJobError } from '@promptpix/core';
import { generationJobPayloadSchema } from '@promptpix/contracts';

export interface LoadJobInput {
  jobStore: Pick<JobStore, 'get'>;
}

/** The job a payload names, from the store (the record is the truth; the payload is only its id). */
export async function loadJob(d: LoadJobInput, payload: unknown): Promise<JobRecord> {
  const parsed = generationJobPayloadSchema.safeParse(payload);
  if (!parsed.success) throw new PermanentJobError('Unreadable job payload');
  const job = await d.jobStore.get(parsed.data.jobId);
  if (!job) throw new PermanentJobError('The job expired before it could run');
  return job;
}

/** How long a job may still run before its Cancel-After deadline (Infinity without one). */
export const msLeftOf = (d: { now: () => Date }, job: JobRecord): number => (job.cancelAt ? Date.parse(job.cancelAt) - d.now().getTime() : Infinity);

export interface AccountCheckInput {
  accounts: Pick<AccountRepository, 'findById'>;
  cancellation: Pick<JobCancellation, 'cancel'>;
}

/** Suspended or banned since the job was accepted: not run; refunded while still queued. True when the job was cancelled. */
export async function cancelIfShutOut(d: AccountCheckInput, job: JobRecord): Promise<boolean> {
  const account = job.status === 'queued' ? await d.accounts.findById(job.accountId) : null;
  if (!account || !isShutOut(account.status)) return false;
  await d.cancellation.cancel(job.jobId, null, accountStatusError(account.status)!.message);
  return true;
}
