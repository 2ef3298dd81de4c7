import { Router } from 'express';
import { metricsAuthorized } from '@promptpix/runtime/metrics';
import type { GatewayDeps } from '../../deps';

/** GET /metrics: Prometheus text of this gateway; `Authorization: Bearer $METRICS_TOKEN` when set. */
export const metricsRoutes = (deps: Pick<GatewayDeps, 'metrics' | 'metricsToken'>) =>
  Router().get('/metrics', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (!metricsAuthorized(deps.metricsToken, req.headers.authorization)) {
      res.status(401).json({ error: 'Unauthorized' });
      return;
    }
    const { contentType, body } = await deps.metrics.scrape();
    res.status(200).type(contentType).send(body);
  });
