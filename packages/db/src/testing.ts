/**
 * For tests that run the same case on both databases: a fresh, migrated PostgreSQL database of
 * their own and an in-memory PGlite. Use with `describe.each(bothDatabases)`.
 */
import { createTestDatabase } from '@promptpix/testing/src/servers';
import { openDatabase, type Database } from './client';
import { migrateDatabase } from './migrations/runner';

export interface OpenedTestDatabase {
  db: Database;
  /** Closes the database and drops the PostgreSQL one. */
  cleanup(): Promise<void>;
}

export const bothDatabases: Array<[name: 'postgres' | 'pglite', open: () => Promise<OpenedTestDatabase>]> = [
  [
    'postgres',
    async () => {
      const test = await createTestDatabase();
      await migrateDatabase({ kind: 'postgres', url: test.url });
      const db = await openDatabase({ kind: 'postgres', url: test.url });
      return { db, cleanup: async () => { await db.close(); await test.drop(); } };
    },
  ],
  [
    'pglite',
    async () => {
      const db = await openDatabase({ kind: 'pglite' });
      await migrateDatabase(db);
      return { db, cleanup: () => db.close() };
    },
  ],
];
