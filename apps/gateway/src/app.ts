import express from 'express';
import { trustProxySetting } from './http/trust-proxy';
import type { GatewayRouteGroups, RouteGroupDeps } from './route-groups';
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
import { homeRoutes } from './http/routes/home';
import { imageRoutes } from './http/routes/images';
import { jobEventRoutes } from './http/routes/job-events';
import { jobCancelRoutes } from './http/routes/job-cancel';
import { jobRoutes } from './http/routes/jobs';
import { metricsRoutes } from './http/routes/metrics';
import { openAiImageEditRoutes } from './http/routes/openai-image-edits';
import { openAiImageRoutes } from './http/routes/openai-images';
import { openAiModelRoutes } from './http/routes/openai-models';
import { permalinkRoutes } from './http/routes/permalinks';
import { readyRoutes } from './http/routes/ready';
import { renderRoutes } from './http/routes/render';
import { styleRoutes } from './http/routes/styles';
import { uploadRoutes } from './http/routes/uploads';
import { upscaleRoutes } from './http/routes/upscale';

/** The native API under /api/v1 and the permalinks, the hot paths first: every router ahead of the one that answers costs a pass through it. */
function publicApiRoutes(deps: RouteGroupDeps<'publicApi'>) {
  return [
    jobRoutes(deps),
    jobCancelRoutes(deps),
    jobEventRoutes(deps),
    permalinkRoutes(deps),
    renderRoutes(deps),
    embedRoutes(deps),
    generateRoutes(deps),
    imageRoutes(deps),
    uploadRoutes(deps),
    upscaleRoutes(deps),
    styleRoutes(deps),
    characterRoutes(deps),
    analyticsRoutes(deps),
  ];
}

function opsRoutes(deps: RouteGroupDeps<'ops'>) {
  return [healthRoutes(deps.serviceName), readyRoutes(deps), metricsRoutes(deps)];
}

function pageRoutes(deps: RouteGroupDeps<'pages'>) {
  return [homeRoutes(deps), clientScriptRoutes(), demoRoutes(deps), docsRoutes(deps), ...(deps.localFilesRoot ? [fileRoutes(deps.localFilesRoot)] : [])];
}

function openAiRoutes(deps: RouteGroupDeps<'openAi'>) {
  return [openAiImageRoutes(deps), openAiImageEditRoutes(deps), openAiModelRoutes(deps)];
}

/** The gateway's HTTP app. No listen(): main.ts and supertest both use it. */
export function createApp(groups: GatewayRouteGroups): express.Express {
  const { app: deps } = groups;
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

  app.use(...publicApiRoutes(groups.publicApi));
  app.use(...opsRoutes(groups.ops));
  app.use(...pageRoutes(groups.pages));
  app.use(adminRoutes(groups.admin));
  app.use(dashboardRoutes(groups.dashboard));
  app.use(...openAiRoutes(groups.openAi));
  // An error handler inside a router never sees its siblings' errors: the /v1 error shape is the app's.
  app.use('/v1', ...openAiErrors(groups.openAi.logger, groups.openAi.now));

  app.use(notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
