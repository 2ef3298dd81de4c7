import { Router } from 'express';
import type { GatewayDeps } from '../../deps';
import { parseOrThrow } from '../../http/validate';
import { failedJobsQuerySchema, listFailedJobs } from '../../account-ops/failed-jobs';
import type { FailedJobPage } from '../contract';
import { signedIn } from '../session';

/** The signed-in account's own failed jobs, with their reasons (the operator API's list, one account). */
export const failedJobRoutes = (deps: GatewayDeps) =>
  Router().get('/dashboard/api/failed-jobs', async (req, res) => {
    const { account: _ignored, ...query } = parseOrThrow(failedJobsQuerySchema, req.query);
    const page = await listFailedJobs(deps, signedIn(res).account.id, query);
    const body: FailedJobPage = { data: page.data.map(({ account: _handle, ...view }) => view), nextCursor: page.nextCursor };
    res.setHeader('Cache-Control', 'no-store');
    res.json(body);
  });
