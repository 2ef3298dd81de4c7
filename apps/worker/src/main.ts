/** Production worker process: consumes BullMQ generation jobs. */
import { createLogger, loadConfig, openInfrastructure, requireSplitDeployment } from '@promptpix/runtime';
import { runProcess } from '@promptpix/runtime/src/process';
import { startGenerationWorker } from './worker';

runProcess('worker', async () => {
  const config = loadConfig();
  requireSplitDeployment(config, 'worker');
  const logger = createLogger({ ...config.log, service: 'promptpix-worker' });
  const infra = await openInfrastructure(config, logger, { migrate: false });
  const consumer = startGenerationWorker(infra, config, logger);
  return {
    logger,
    async stop() {
      await consumer.close();
      await infra.close();
    },
  };
});
