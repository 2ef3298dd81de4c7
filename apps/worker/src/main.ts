/** Production worker process: consumes BullMQ generation jobs. */
import { createLogger, loadConfig, openInfrastructure, requireSplitDeployment } from '@promptpix/runtime';
import { infrastructureDependencies, reportDependencyHealth } from '@promptpix/runtime/dependency-status';
import { createLifecycle } from '@promptpix/runtime/lifecycle';
import { startOpsServer } from '@promptpix/runtime/metrics';
import { runProcess } from '@promptpix/runtime/process';
import { startWorkers } from './worker';

runProcess('worker', async () => {
  const config = loadConfig();
  requireSplitDeployment(config, 'worker');
  const logger = createLogger({ ...config.log, service: 'promptpix-worker' });
  const infra = await openInfrastructure(config, logger, { migrate: false, redisWaitsForReconnect: true });
  // /metrics, /api/health (liveness), /api/ready (503 while draining) and /api/status on METRICS_PORT, up until the last job is done.
  const lifecycle = createLifecycle();
  const status = infrastructureDependencies(infra, { redis: true, logger });
  reportDependencyHealth(infra.metrics, status);
  const ops = await startOpsServer({
    port: config.metrics.port,
    serviceName: 'promptpix-worker',
    metrics: infra.metrics,
    token: config.metrics.token,
    http: config.http,
    lifecycle,
    status,
  });
  const consumer = startWorkers(infra, config, logger);
  logger.info('worker metrics listening', { port: ops.port });
  return {
    logger,
    async stop() {
      lifecycle.stopping();
      await consumer.close();
      await ops.stop(1000);
      await infra.close();
    },
  };
});
