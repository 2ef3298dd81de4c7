/**
 * Real servers for integration tests. PostgreSQL and Redis are expected on loopback
 * (.ci/run installs and starts them when missing); a missing server fails the run.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';

export { TEST_POSTGRES, postgresUrl, createTestDatabase, type TestDatabase } from '@promptpix/db/testing';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const suffix = () => randomBytes(5).toString('hex');

/** A Redis key prefix of our own, so parallel test files never see each other's keys. */
export const testRedisPrefix = () => `promptpix-test:${suffix()}:`;

/** A TCP port free on loopback right now (for servers a test starts as child processes). */
export const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer()
      .once('error', fail)
      .listen(0, '127.0.0.1', () => {
        const port = (server.address() as { port: number }).port;
        server.close(() => done(port));
      });
  });
