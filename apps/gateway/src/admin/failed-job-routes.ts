import { Router } from 'express';
import type { GatewayDeps } from '../deps';
import { parseOrThrow } from '../http/validate';
import { type AdminFailedJobPage, type AdminFailedJobRetried, failedJobsQuerySchema } from '@promptpix/contracts';
import { listFailedJobs, retryFailedJob } from '../account-ops/failed-jobs';

type Deps = Pick<GatewayDeps, 'accounts' | 'failedJobs' | 'generations' | 'logger' | 'models'>;

/**
 * Operator API for jobs that failed for good (docs/operating/models.md, "Failed jobs"): the list,
 * newest first, filtered by account, model and time, and one retry per failed job. Mounted behind
 * the admin token by ./routes.ts.
 */
export function failedJobAdminRoutes(deps: Deps, accountByHandle: (handle: string) => Promise<{ id: string }>) {
  const router = Router();

  router.get('/admin/api/v1/failed-jobs', async (req, res) => {
    const { account, ...query } = parseOrThrow(failedJobsQuerySchema, req.query);
    const accountId = account === undefined ? undefined : (await accountByHandle(account)).id;
    res.json((await listFailedJobs(deps, accountId, query)) satisfies AdminFailedJobPage);
  });

  router.post('/admin/api/v1/failed-jobs/:jobId/retry', async (req, res) => {
    const retried = await retryFailedJob(deps, req.params.jobId);
    deps.logger.info('failed job retried by operator', { jobId: req.params.jobId, retriedAs: retried.jobId, outcome: retried.outcome });
    res.status(202).json(retried satisfies AdminFailedJobRetried);
  });

  return router;
}
