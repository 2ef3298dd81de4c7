import { Router } from 'express';
import { AppError, toJobView, type JobRecord } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';

type Deps = Pick<GatewayDeps, 'credentials' | 'jobStore'>;

// In core since webhooks send the same view.
export { toJobView };

export const JOB_ID = /^[A-Za-z0-9-]{1,100}$/;

/** One of an account's jobs; another account's, a malformed id or an expired job is a 404. */
export async function findOwnJob(deps: Pick<GatewayDeps, 'jobStore'>, accountId: string, jobId: string): Promise<JobRecord> {
  const job = JOB_ID.test(jobId) ? await deps.jobStore.get(jobId) : null;
  if (!job || job.accountId !== accountId) throw new AppError('not_found', ErrorMessages.jobNotFound);
  return job;
}

/** GET /api/v1/job/:jobId: either key; reads only the job store; never rate limited. */
export const jobRoutes = (deps: Deps) =>
  Router().get('/api/v1/job/:jobId', authenticate(deps.credentials, { allow: 'either' }), async (req, res) => {
    const job = await findOwnJob(deps, authOf(res).account.id, req.params.jobId as string);
    const finished = job.status === 'completed' || job.status === 'failed';
    res.setHeader('Cache-Control', finished ? 'private, max-age=60' : 'no-cache');
    res.json(toJobView(job));
  });
