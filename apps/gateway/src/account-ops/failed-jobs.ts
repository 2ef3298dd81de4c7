import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { failedJobsQuerySchema } from '@promptpix/contracts';
import { accountStatusError, AppError, fieldError, type Caller, type PlanName, type Started } from '@promptpix/core';
import type { FailedJobRow } from '@promptpix/db';
import type { GatewayDeps } from '../deps';
import { chosenModel } from '../http/model-choice';
import { JOB_ID } from '../http/routes/jobs';

/** One failed job as the operator API and the dashboard show it. */
export const failedJobView = (row: FailedJobRow) => ({
  jobId: row.jobId,
  account: row.handle,
  model: row.model,
  reason: row.reason,
  prompt: row.request.prompt,
  style: row.request.style ?? null,
  width: row.request.width,
  height: row.request.height,
  createdAt: row.createdAt.toISOString(),
  failedAt: row.failedAt.toISOString(),
  retriedAs: row.retriedAs?.startsWith(CLAIM) ? null : row.retriedAs,
  retriedAt: row.retriedAt?.toISOString() ?? null,
});

/** A retry being started holds the row with this prefix until the new job id is known. */
const CLAIM = 'claim:';

const encodeCursor = (row: FailedJobRow) => Buffer.from(`${row.failedAt.toISOString()}|${row.jobId}`).toString('base64url');
function decodeCursor(cursor: string): { failedAt: Date; jobId: string } {
  const [at, jobId] = Buffer.from(cursor, 'base64url').toString().split('|');
  const failedAt = new Date(at ?? '');
  if (!jobId || Number.isNaN(failedAt.getTime())) throw fieldError('cursor', 'Not a cursor from an earlier page');
  return { failedAt, jobId };
}

/** A page of failed jobs, newest first, and the cursor of the next page (null: none). */
export async function listFailedJobs(
  deps: Pick<GatewayDeps, 'failedJobs'>,
  accountId: string | undefined,
  q: Omit<z.infer<typeof failedJobsQuerySchema>, 'account'>,
) {
  const rows = await deps.failedJobs.list({
    accountId,
    model: q.model,
    since: q.since ? new Date(q.since) : undefined,
    cursor: q.cursor ? decodeCursor(q.cursor) : undefined,
    limit: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  return { data: page.map(failedJobView), nextCursor: rows.length > q.limit ? encodeCursor(page[page.length - 1]) : null };
}

/** Who retries: the operator (no scope), or an account (its own jobs only, under its cap on jobs in progress). */
export interface RetryScope {
  /** Only this account's failed jobs; another account's is a 404, as an unknown id. */
  accountId?: string;
  caller?: Caller;
}

/**
 * A retry, by an operator or by the account from its dashboard: a new job for the same request,
 * started like any other (DECISIONS, "Generation, caching, jobs"): a fresh generation reserves a
 * quota unit (refunded if it fails), a cache hit is free, an identical job in flight is joined.
 * One retry per failed job.
 */
export async function retryFailedJob(deps: Pick<GatewayDeps, 'failedJobs' | 'accounts' | 'generations' | 'models'>, jobId: string, scope: RetryScope = {}) {
  if (!JOB_ID.test(jobId)) throw fieldError('jobId', 'Expected a job id: 1 to 100 letters, digits and dashes');
  const row = await deps.failedJobs.find(jobId);
  if (!row || (scope.accountId !== undefined && row.accountId !== scope.accountId)) throw new AppError('not_found', 'No failed job with this id is kept');
  const account = await deps.accounts.findById(row.accountId);
  if (!account) throw new AppError('not_found', 'No failed job with this id is kept');
  const shutOut = accountStatusError(account.status);
  if (shutOut) throw shutOut;
  // The model may have left the configuration since: a 400 naming `model`.
  chosenModel(deps.models, row.request.model);
  const claim = CLAIM + randomUUID();
  if (!(await deps.failedJobs.claimRetry(jobId, claim))) {
    const again = await deps.failedJobs.find(jobId);
    throw new AppError('conflict', 'This failed job was retried already', {
      retriedAs: again?.retriedAs?.startsWith(CLAIM) ? null : (again?.retriedAs ?? null),
    });
  }
  let started: Started;
  try {
    started = await deps.generations.start({ ...account, plan: account.plan as PlanName }, row.request, scope.caller ? { caller: scope.caller } : {});
  } catch (error) {
    await deps.failedJobs.settleRetry(jobId, claim, null);
    throw error;
  }
  await deps.failedJobs.settleRetry(jobId, claim, started.job.jobId);
  return { jobId: started.job.jobId, retryOf: jobId, status: started.job.status, outcome: started.outcome };
}
