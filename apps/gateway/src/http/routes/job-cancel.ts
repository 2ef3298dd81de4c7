import { Router } from 'express';
import { ErrorMessages } from '@promptpix/contracts';
import { AppError } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';
import { toJobView } from './jobs';

type Deps = Pick<GatewayDeps, 'cancellation' | 'credentials'>;

export const JOB_FINISHED = 'The job has already finished';

/**
 * DELETE /api/v1/job/:jobId (an extension): secret key. A queued or running job is cancelled:
 * 200 with the job, now `failed` with `error: "cancelled"`, its quota unit refunded. Cancelling
 * again answers the same; a job that finished otherwise is a 409; another account's is a 404.
 */
export const jobCancelRoutes = (deps: Deps) =>
  Router().delete('/api/v1/job/:jobId', authenticate(deps.credentials, { allow: 'secret' }), async (req, res) => {
    const outcome = await deps.cancellation.cancel(req.params.jobId as string, authOf(res).account.id);
    if (outcome.kind === 'not_found') throw new AppError('not_found', ErrorMessages.jobNotFound);
    if (outcome.kind === 'finished') throw new AppError('conflict', JOB_FINISHED, { job: toJobView(outcome.job) });
    res.setHeader('Cache-Control', 'no-store');
    res.json(toJobView(outcome.job));
  });
