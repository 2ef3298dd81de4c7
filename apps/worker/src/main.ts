/** Production worker process: consumes BullMQ generation jobs. */
import { createLogger, loadConfig, openInfrastructure, requireSplitDeployment } from '@promptpix/runtime';
import { infrastructureReadiness, startOpsServer } from '@promptpix/runtime/src/metrics';
import { runProcess } from '@promptpix/runtime/src/process';
import { startWorkers } from './worker';

runProcess('worker', async () => {
  const config = loadConfig();
  requireSplitDeployment(config, 'worker');
  const logger = createLogger({ ...config.log, service: 'promptpix-worker' });
  const infra = await openInfrastructure(config, logger, { migrate: false, redisWaitsForReconnect: true });
  // /metrics, /api/health (liveness) and /api/ready on METRICS_PORT, up until the last job is done.
  const ops = await startOpsServer({ port: config.metrics.port, serviceName: 'promptpix-worker', metrics: infra.metrics, token: config.metrics.token, http: config.http, ready: infrastructureReadiness(infra, { redis: true, logger }) });
  const consumer = startWorkers(infra, config, logger);
  logger.info('worker metrics listening', { port: ops.port });
  return {
    logger,
    async stop() {
      await consumer.close();
      await ops.stop(1000);
      await infra.close();
    },
  };
});
