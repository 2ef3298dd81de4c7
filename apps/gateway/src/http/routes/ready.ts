import { Router } from 'express';
import { statusAnswer } from '@promptpix/runtime/dependency-status';
import { readinessAnswer } from '@promptpix/runtime/lifecycle';
import type { GatewayDeps } from '../../deps';

/**
 * GET /api/ready (no key): whether this process takes traffic, for a load balancer or Kubernetes:
 * 200 `{status:'ready'}` from the moment it listens, 503 `{error:'Not ready', reason}` once it is
 * shutting down. A dependency's outage does not make it unready: polling, cached redirects and
 * permalinks still work, and a blip of shared storage would otherwise empty the Service of every
 * gateway at once. Liveness stays /api/health.
 *
 * GET /api/status (no key): the dependencies as seen from here (`ok`, `timeout`, `failed`), each
 * check bounded and shared between concurrent callers; the same as `promptpix_dependency_up`.
 */
export const readyRoutes = (deps: Pick<GatewayDeps, 'lifecycle' | 'status'>) =>
  Router()
    .get('/api/ready', (_req, res) => {
      const answer = readinessAnswer(deps.lifecycle);
      res.setHeader('Cache-Control', 'no-store');
      res.status(answer.status).json(answer.body);
    })
    .get('/api/status', async (_req, res) => {
      const answer = statusAnswer(await deps.status());
      res.setHeader('Cache-Control', 'no-store');
      res.status(answer.status).json(answer.body);
    });
