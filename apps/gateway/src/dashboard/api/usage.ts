import { Router, type Request, type Response } from 'express';
import { RATE_LIMIT_PER_MINUTE, type PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { parseOrThrow } from '../../http/validate';
import { usageQuerySchema, type UsageDay, type UsageView } from '@promptpix/contracts';
import { signedIn } from '../session';
import { usageCsv, usageDates, usageDays } from './usage-report';

type Deps = Pick<GatewayDeps, 'eventStore' | 'events' | 'now' | 'quota'>;

/** The account's counted events per UTC day, the JSON and the CSV alike. */
async function dailyUsage(deps: Deps, req: Request, res: Response): Promise<UsageDay[]> {
  const { days } = parseOrThrow(usageQuerySchema, req.query);
  const dates = usageDates(deps.now(), days);
  // Events are buffered in process: flushed first, as the operator's export does.
  await deps.events.flush();
  const counts = await deps.eventStore.dailyCounts(signedIn(res).account.id, dates[0], dates[dates.length - 1]);
  return usageDays(dates, counts);
}

/** Plan, quota (as the public API's headers read it), rate limit, and daily counts as JSON or CSV. */
export const usageRoutes = (deps: Deps) =>
  Router()
    .get('/dashboard/api/usage', async (req, res) => {
      const daily = await dailyUsage(deps, req, res);
      const { account } = signedIn(res);
      const plan = account.plan as PlanName;
      const quota = await deps.quota.peek({ ...account, plan });
      const body: UsageView = {
        plan,
        quota: { used: quota.used, limit: quota.limit, resetAt: quota.resetAt.toISOString() },
        rateLimit: { requestsPerMinute: RATE_LIMIT_PER_MINUTE[plan] },
        daily,
      };
      res.setHeader('Cache-Control', 'no-store');
      res.json(body);
    })
    .get('/dashboard/api/usage.csv', async (req, res) => {
      const daily = await dailyUsage(deps, req, res);
      const { account } = signedIn(res);
      const filename = `usage-${account.handle}-${daily[0].date}-${daily[daily.length - 1].date}.csv`;
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
      res.setHeader('Cache-Control', 'no-store');
      res.send(usageCsv(daily));
    });
