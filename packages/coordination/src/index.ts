export * from './memory-rate-limiter';
export * from './redis-rate-limiter';
export * from './single-flight';
export * from './invalidation-bus';
export * from './idempotency-store';
export * from './active-jobs';
export * from './budget-counter';
export * from './job-admission';
