/** `@promptpix/server/testing`: the whole service started in a test, in either shape. Tests, scripts and the bench only. */
export * from './test-service';
