/** `@promptpix/queue/testing`: the contract suites every queue and job store adapter passes, and test helpers. Tests only. */
export * from './queue.contract';
export * from './job-store.contract';
export * from './helpers';
