import { Router } from 'express';
import type { PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { type GenerateDeps, runGenerate } from '../../http/routes/generate';
import { serveJobEvents } from '../../http/routes/job-events';
import { parseOrThrow } from '../../http/validate';
import { playgroundBodySchema, type PlaygroundAccepted, type PlaygroundMatch } from '@promptpix/contracts';
import { signedIn } from '../session';
import { dashboardCaller, hitPlaygroundRateLimit } from './account';

type Deps = GenerateDeps & Pick<GatewayDeps, 'jobStore' | 'openStreams' | 'queue'>;

/**
 * The playground: a generation as POST /api/v1/generate makes it (same checks, cache, quota and job
 * cap, through runGenerate; an edit's `image`, `mask` and `background` included), under the plan's
 * rate limit in a bucket of the account's own, and the job's progress as the public event stream tells it.
 */
export const playgroundRoutes = (deps: Deps) =>
  Router()
    .post('/dashboard/api/playground', async (req, res) => {
      const { account } = signedIn(res);
      await hitPlaygroundRateLimit(deps, account, res);
      const body = parseOrThrow(playgroundBodySchema, req.body);
      const outcome = await runGenerate(deps, { ...account, plan: account.plan as PlanName }, dashboardCaller(deps, account), body);
      res.setHeader('Cache-Control', 'no-store');
      if (outcome.mode === 'instant') {
        const match: PlaygroundMatch = { mode: 'instant', ...outcome.result };
        return void res.json(match);
      }
      const { quota, job } = outcome;
      const accepted: PlaygroundAccepted = {
        mode: 'generate',
        jobId: job.jobId,
        quota: { used: quota.used, limit: quota.limit, resetAt: quota.resetAt.toISOString() },
      };
      res.status(202).json(accepted);
    })
    .get('/dashboard/api/jobs/:jobId/events', (req, res) =>
      serveJobEvents(deps, req, res, req.params.jobId, { accountId: signedIn(res).account.id, keyId: null }),
    );
