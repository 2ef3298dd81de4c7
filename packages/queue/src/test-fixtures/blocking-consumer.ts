/**
 * Child process for bullmq-stalled.int.test.ts: consumes one queue with a handler that announces
 * the job on stdout and then never finishes, so the test can SIGKILL it mid-job.
 * Usage: node --import tsx blocking-consumer.ts '<json BullGenerationQueueOptions>'
 */
import { createBullGenerationQueue, type BullGenerationQueueOptions } from '../bullmq-queue';

const options = JSON.parse(process.argv[2] ?? '{}') as BullGenerationQueueOptions;
const queue = createBullGenerationQueue({ ...options, onError: (e) => process.stderr.write(`consumer error: ${e.message}\n`) });
queue.consume(
  async (payload) => {
    process.stdout.write(`started ${payload.jobId}\n`);
    await new Promise(() => undefined);
  },
  {
    concurrency: 1,
    onFinalFailure: async (payload, error) => {
      process.stdout.write(`final-failure ${payload.jobId} ${error.message}\n`);
    },
  },
);
process.stdout.write('ready\n');
