/** Production gateway process: HTTP API in front of PostgreSQL, Redis and the queue. */
import { createLogger, loadConfig, openInfrastructure, requireSplitDeployment } from '@promptpix/runtime';
import { createLifecycle } from '@promptpix/runtime/lifecycle';
import { listen, runProcess } from '@promptpix/runtime/process';
import { createApp } from './app';
import { buildGateway } from './build';
import { startStylePreviews } from './style-previews';

runProcess('gateway', async () => {
  const config = loadConfig();
  requireSplitDeployment(config, 'gateway');
  const logger = createLogger({ ...config.log, service: 'promptpix-gateway' });
  if (!config.adminToken) logger.warn('ADMIN_TOKEN is not set: the operator API (/admin/api/v1) refuses every call');
  const infra = await openInfrastructure(config, logger, { migrate: false });
  const previews = config.stylePreviews ? startStylePreviews(infra, logger) : null;
  const lifecycle = createLifecycle();
  const server = await listen(
    createApp(buildGateway(infra, config, logger, config.adminToken, () => previews?.current() ?? {}, lifecycle)),
    config.port,
    undefined,
    config.http,
  );
  logger.info('gateway listening', { port: config.port, publicBaseUrl: config.publicBaseUrl });
  return {
    logger,
    async stop() {
      lifecycle.stopping();
      await server.stop();
      await infra.close();
    },
  };
});
