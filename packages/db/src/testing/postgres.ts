/**
 * The PostgreSQL server integration tests use (on loopback; .ci/run installs and starts it when
 * missing) and fresh databases of their own on it. Re-exported by @promptpix/testing.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const TEST_POSTGRES = {
  host: process.env.TEST_PGHOST ?? '127.0.0.1',
  port: Number(process.env.TEST_PGPORT ?? 5432),
  user: process.env.TEST_PGUSER ?? 'postgres',
};

const suffix = () => randomBytes(5).toString('hex');

export const postgresUrl = (database: string) => `postgresql://${TEST_POSTGRES.user}@${TEST_POSTGRES.host}:${TEST_POSTGRES.port}/${database}`;

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh PostgreSQL database of our own (`promptpix_test_*`): empty, or a copy of `template`
 * (a file-level copy made by the server, much faster than replaying migrations).
 */
export async function createTestDatabase(options: { template?: string } = {}): Promise<TestDatabase> {
  const name = `promptpix_test_${suffix()}`;
  const admin = new Client({ ...TEST_POSTGRES, database: 'postgres' });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"${options.template ? ` TEMPLATE "${options.template}"` : ''}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: postgresUrl(name),
    async drop() {
      const c = new Client({ ...TEST_POSTGRES, database: 'postgres' });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
