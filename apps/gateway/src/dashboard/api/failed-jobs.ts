import { Router } from 'express';
import type { GatewayDeps } from '../../deps';
import { parseOrThrow } from '../../http/validate';
import { listFailedJobs, retryFailedJob } from '../../account-ops/failed-jobs';
import { failedJobsQuerySchema, type FailedJobPage, type FailedJobRetried } from '@promptpix/contracts';
import { signedIn } from '../session';
import { dashboardCaller } from './account';

type Deps = Pick<GatewayDeps, 'accounts' | 'activeJobsPerKey' | 'failedJobs' | 'generations' | 'logger' | 'models'>;

/**
 * The signed-in account's own failed jobs, with their reasons (the operator API's list, one
 * account), and the account's retry of one of them (the operator's retry, scoped to the account).
 */
export const failedJobRoutes = (deps: Deps) =>
  Router()
    .get('/dashboard/api/failed-jobs', async (req, res) => {
      const { account: _ignored, ...query } = parseOrThrow(failedJobsQuerySchema, req.query);
      const page = await listFailedJobs(deps, signedIn(res).account.id, query);
      const body: FailedJobPage = { data: page.data.map(({ account: _handle, ...view }) => view), nextCursor: page.nextCursor };
      res.setHeader('Cache-Control', 'no-store');
      res.json(body);
    })
    .post('/dashboard/api/failed-jobs/:jobId/retry', async (req, res) => {
      const { account } = signedIn(res);
      const body: FailedJobRetried = await retryFailedJob(deps, req.params.jobId, { accountId: account.id, caller: dashboardCaller(deps, account) });
      deps.logger.info('failed job retried by account', { accountId: account.id, jobId: req.params.jobId, retriedAs: body.jobId, outcome: body.outcome });
      res.setHeader('Cache-Control', 'no-store');
      res.status(202).json(body);
    });
