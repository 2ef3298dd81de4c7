/**
 * `npm start`: the whole service in one process on embedded defaults (PGlite, in-process queue
 * and job store, images on local disk under DATA_DIR). Any of DATABASE_URL, REDIS_URL or
 * S3_BUCKET switches that part to its production adapter.
 */
import { createApp } from '@promptpix/gateway';
import { buildGateway } from '@promptpix/gateway';
import { startStylePreviews } from '@promptpix/gateway';
import { startWorkers } from '@promptpix/worker';
import { releaseSchemaEngine } from '@promptpix/db';
import { createLogger, ensureAdminToken, loadConfig, openInfrastructure } from '@promptpix/runtime';
import { createLifecycle } from '@promptpix/runtime/lifecycle';
import { listen, runProcess } from '@promptpix/runtime/process';

runProcess('server', async () => {
  const config = loadConfig();
  const logger = createLogger({ ...config.log, service: 'promptpix' });
  const admin = config.adminToken ? { token: config.adminToken, created: false } : ensureAdminToken(config.dataDir);
  const infra = await openInfrastructure(config, logger, { migrate: true });
  // Migrated once at start-up and never again in this process: let the schema engine go.
  releaseSchemaEngine();
  const consumer = startWorkers(infra, config, logger);
  const previews = config.stylePreviews ? startStylePreviews(infra, logger) : null;
  const lifecycle = createLifecycle();
  const server = await listen(
    createApp(buildGateway(infra, config, logger, admin.token, () => previews?.current() ?? {}, lifecycle)),
    config.port,
    undefined,
    config.http,
  );
  logger.info('promptpix listening', {
    url: config.publicBaseUrl,
    dashboard: `${config.publicBaseUrl}/dashboard`,
    dataDir: config.dataDir,
    database: config.database.kind,
    storage: config.storage.kind,
    queue: config.redis ? 'bullmq' : 'in-process',
  });
  if (!config.adminToken) {
    // Printed on purpose: the operator needs it once, and it is stored in DATA_DIR/admin-token.
    process.stdout.write(`\nAdmin token (${admin.created ? 'new, ' : ''}stored in ${config.dataDir}/admin-token): ${admin.token}\n\n`);
  }
  return {
    logger,
    async stop() {
      lifecycle.stopping();
      await server.stop();
      await consumer.close();
      await infra.close();
    },
  };
});
