/**
 * Jest global setup for integration tests: PostgreSQL and Redis must be reachable (a missing
 * server is a failure, never a silent skip); then the migrated template databases that every test
 * file copies are built once, before any worker starts (see packages/db/src/testing/templates.ts);
 * and dist/ is rebuilt if a source changed, so the gateway serves the dashboard's current build.
 */
import { Client } from 'pg';
import Redis from 'ioredis';
import { prepareTestTemplates } from '@promptpix/db/testing';
import { buildIfStale } from './processes';
import { TEST_POSTGRES, TEST_REDIS_URL } from './servers';

export default async function globalSetup(): Promise<void> {
  const pg = new Client({ ...TEST_POSTGRES, database: 'postgres', connectionTimeoutMillis: 5000 });
  try {
    await pg.connect();
    await pg.query('SELECT 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL is required at ${TEST_POSTGRES.host}:${TEST_POSTGRES.port} for integration tests (run .ci/run to install/start it): ${(error as Error).message}`,
    );
  } finally {
    await pg.end().catch(() => undefined);
  }
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis is required at ${TEST_REDIS_URL} for integration tests (run .ci/run to install/start it): ${(error as Error).message}`);
  } finally {
    redis.disconnect();
  }
  await prepareTestTemplates();
  buildIfStale();
}
