export { createMemoryJobStore, type MemoryJobStoreOptions } from './memory-job-store';
export { createRedisJobStore, redisJobKey, type RedisJobStoreOptions } from './redis-job-store';
export { decodeJobFields, encodeJobFields } from './job-record-codec';
export { createInProcessGenerationQueue, type InProcessQueueOptions } from './in-process-queue';
export {
  bullQueueKeys,
  createBullGenerationQueue,
  DEFAULT_QUEUE_NAME,
  QueueUnavailableError,
  type BullGenerationQueueOptions,
} from './bullmq-queue';
