export { createMemoryJobStore, type MemoryJobStoreOptions } from './memory-job-store';
export { createRedisJobStore, type RedisJobStoreOptions } from './redis-job-store';
export { createInProcessGenerationQueue, type InProcessQueueOptions } from './in-process-queue';
export {
  bullQueueKeys,
  createBullGenerationQueue,
  DEFAULT_QUEUE_NAME,
  QueueUnavailableError,
  type BullGenerationQueueOptions,
} from './bullmq-queue';
