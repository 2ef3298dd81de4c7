/** `@promptpix/worker`: the job consumers, for a process that runs them (apps/server). */
export { startWorkers, startGenerationWorker, startWebhookWorker, WEBHOOK_USER_AGENT } from './worker';
export { createGenerationProcessor } from './processors/generation';
