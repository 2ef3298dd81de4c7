import express from 'express';
import { trustProxySetting } from './http/trust-proxy';
import type { GatewayDeps } from './deps';
import { adminRoutes } from './admin/routes';
import { dashboardRoutes } from './dashboard/routes';
import { refuseEncodedBodies } from './http/middleware/body';
import { corsPreflight } from './http/middleware/cors-preflight';
import { errorHandler, notFound } from './http/middleware/error-handler';
import { httpMetrics } from './http/middleware/http-metrics';
import { openAiErrors } from './http/openai-errors';
import { requestId } from './http/middleware/request-id';
import { requestLog } from './http/middleware/request-log';
import { analyticsRoutes } from './http/routes/analytics';
import { clientScriptRoutes } from './http/routes/client-script';
import { demoRoutes } from './http/routes/demo';
import { docsRoutes } from './http/routes/docs';
import { characterRoutes } from './http/routes/characters';
import { embedRoutes } from './http/routes/embed';
import { fileRoutes } from './http/routes/files';
import { generateRoutes } from './http/routes/generate';
import { healthRoutes } from './http/routes/health';
import { imageRoutes } from './http/routes/images';
import { jobEventRoutes } from './http/routes/job-events';
import { jobCancelRoutes } from './http/routes/job-cancel';
import { jobRoutes } from './http/routes/jobs';
import { metricsRoutes } from './http/routes/metrics';
import { openAiImageRoutes } from './http/routes/openai-images';
import { openAiModelRoutes } from './http/routes/openai-models';
import { permalinkRoutes } from './http/routes/permalinks';
import { readyRoutes } from './http/routes/ready';
import { renderRoutes } from './http/routes/render';
import { styleRoutes } from './http/routes/styles';

/** The gateway's HTTP app. No listen(): main.ts and supertest both use it. */
export function createApp(deps: GatewayDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  if (deps.trustProxy !== undefined) app.set('trust proxy', trustProxySetting(deps.trustProxy));

  app.use(requestId());
  app.use(requestLog(deps.logger));
  app.use(httpMetrics(deps.metrics));
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  });
  app.options('/api/v1/*splat', corsPreflight());
  // No body parser here: each door reads the body after checking its caller (http/middleware/body.ts).
  app.use(refuseEncodedBodies());

  // The hot paths first: every router ahead of the one that answers costs a pass through it.
  app.use(jobRoutes(deps));
  app.use(jobCancelRoutes(deps));
  app.use(jobEventRoutes(deps));
  app.use(permalinkRoutes(deps));
  app.use(renderRoutes(deps));
  app.use(embedRoutes(deps));
  app.use(generateRoutes(deps));
  app.use(imageRoutes(deps));
  app.use(healthRoutes(deps.serviceName));
  app.use(readyRoutes(deps));
  app.use(metricsRoutes(deps));
  app.use(styleRoutes(deps));
  app.use(characterRoutes(deps));
  app.use(analyticsRoutes(deps));
  app.use(clientScriptRoutes(deps));
  app.use(demoRoutes(deps));
  app.use(docsRoutes(deps));
  app.use(adminRoutes(deps));
  app.use(dashboardRoutes(deps));
  app.use(openAiImageRoutes(deps));
  app.use(openAiModelRoutes(deps));
  app.use('/v1', ...openAiErrors(deps.logger, deps.now));
  if (deps.localFilesRoot) app.use(fileRoutes(deps.localFilesRoot));

  app.use(notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
