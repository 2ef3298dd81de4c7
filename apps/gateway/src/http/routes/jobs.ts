import { Router } from 'express';
import { AppError, type JobRecord } from '@promptpix/core';
import { ErrorMessages, type JobView } from '@promptpix/contracts';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';

/** The job as callers see it: a field appears only once it has a value. */
export function toJobView(job: JobRecord): JobView {
  const view: JobView = { jobId: job.jobId, status: job.status, createdAt: job.createdAt };
  if (job.status === 'completed') {
    view.imageUrl = job.imageUrl;
    view.imageId = job.imageId;
  }
  if (job.status === 'failed' && job.error) view.error = job.error;
  if (job.completedAt) view.completedAt = job.completedAt;
  return view;
}

const JOB_ID = /^[A-Za-z0-9-]{1,100}$/;

/** GET /api/v1/job/:jobId: either key; reads only the job store; never rate limited. */
export const jobRoutes = (deps: GatewayDeps) =>
  Router().get('/api/v1/job/:jobId', authenticate(deps.credentials, { allow: 'either' }), async (req, res) => {
    const jobId = req.params.jobId as string;
    const job = JOB_ID.test(jobId) ? await deps.jobStore.get(jobId) : null;
    if (!job || job.accountId !== authOf(res).account.id) throw new AppError('not_found', ErrorMessages.jobNotFound);
    const finished = job.status === 'completed' || job.status === 'failed';
    res.setHeader('Cache-Control', finished ? 'private, max-age=60' : 'no-cache');
    res.json(toJobView(job));
  });
