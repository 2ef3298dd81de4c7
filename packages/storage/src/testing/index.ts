/** `@promptpix/storage/testing`: the contract suite every storage adapter passes. Tests only. */
export * from './storage.contract';
