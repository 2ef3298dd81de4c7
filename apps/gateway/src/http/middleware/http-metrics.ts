import type { Request, RequestHandler } from 'express';
import type { Metrics } from '@promptpix/runtime/metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route label: the Express pattern that answered (`/api/v1/job/:jobId`), never the raw path,
 * so the number of series stays bounded. Requests no route matched share a few fixed labels.
 */
export function routeLabel(req: Request): string {
  const pattern: unknown = req.route?.path;
  if (typeof pattern === 'string') return req.baseUrl + pattern;
  if (req.originalUrl.startsWith('/files/')) return '/files/*';
  if (req.originalUrl.startsWith('/admin/')) return '/admin/*';
  return 'unmatched';
}

/** Request count and latency by method, route pattern and status; 429s also count as rate-limit rejections. */
export const httpMetrics =
  (metrics: Metrics): RequestHandler =>
  (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const route = routeLabel(req);
      const labels = { method: METHODS.has(req.method) ? req.method : 'OTHER', route, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      if (res.statusCode === 429) metrics.rateLimitRejections.inc({ route });
    });
    next();
  };
