import { Router } from 'express';
import type { GatewayDeps } from '../../deps';

/**
 * GET /api/ready (no key): readiness for a load balancer or Kubernetes. The database (`SELECT 1`),
 * Redis (job store ping) and storage (ping) each answer within a short timeout:
 * 200 `{status:'ready', checks}` or 503 `{error:'Not ready', checks}`. Liveness stays /api/health,
 * which checks nothing outside the process (a dependency outage must not restart gateways).
 */
export const readyRoutes = (deps: Pick<GatewayDeps, 'ready'>) =>
  Router().get('/api/ready', async (_req, res) => {
    const report = await deps.ready();
    res.setHeader('Cache-Control', 'no-store');
    // A model's backend being down never makes the gateway unready (docs/operating/models.md): detail only.
    const models = report.models && { models: report.models };
    if (report.ready) res.status(200).json({ status: 'ready', checks: report.checks, ...models });
    else res.status(503).json({ error: 'Not ready', checks: report.checks, ...models });
  });
