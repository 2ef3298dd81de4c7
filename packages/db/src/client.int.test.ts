import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, TEST_POSTGRES, type TestDatabase } from '@promptpix/testing';
import { openDatabase, type Database } from './client';
import { migrateDatabase } from './migrations/runner';
import { PGLITE_SHARED_BUFFERS } from './pglite';

const terminateAll = 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()';

const waitFor = async (done: () => boolean) => {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
};

describe('a PostgreSQL connection closed by the server (restart, failover, an operator)', () => {
  let test: TestDatabase;
  let admin: Client;
  beforeAll(async () => {
    test = await createTestDatabase();
    await migrateDatabase({ kind: 'postgres', url: test.url });
    admin = new Client({ ...TEST_POSTGRES, database: 'postgres' });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await test.drop();
  });
  const terminateConnections = async () => (await admin.query(terminateAll, [test.name])).rowCount ?? 0;

  it('is reported, not thrown, and the next query gets a fresh connection', async () => {
    const lost: Error[] = [];
    const db: Database = await openDatabase({ kind: 'postgres', url: test.url }, { onConnectionLost: (e) => lost.push(e) });
    try {
      await db.sql.query('SELECT 1', []);
      await db.prisma.account.count();
      expect(await terminateConnections()).toBeGreaterThan(0);
      await waitFor(() => lost.length > 0);
      expect(lost[0].message).toMatch(/terminating connection/);

      expect(await db.sql.query<{ one: number }>('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
      expect(await db.prisma.account.count()).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('does not end the process when it happens while closing', async () => {
    // pool.end() resolves before its connections have finished closing; a forced DROP DATABASE
    // in that window used to raise an unhandled 'error' event.
    const db = await openDatabase({ kind: 'postgres', url: test.url });
    await Promise.all([db.sql.query('SELECT pg_sleep(0.05)', []), db.sql.query('SELECT pg_sleep(0.05)', []), db.prisma.account.count()]);
    await Promise.all([db.close(), terminateConnections()]);
    await new Promise((r) => setTimeout(r, 200));
  });
});

describe('the embedded database (PGlite)', () => {
  it('runs with small shared buffers, so it does not hold 128MB of resident memory from the start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'promptpix-pglite-'));
    const database = await openDatabase({ kind: 'pglite', dataDir });
    try {
      const [row] = await database.prisma.$queryRawUnsafe<Array<{ shared_buffers: string }>>('SHOW shared_buffers');
      expect(row.shared_buffers).toBe(PGLITE_SHARED_BUFFERS);
    } finally {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
