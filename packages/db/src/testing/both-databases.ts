/**
 * For tests that run the same case on both databases: a fresh, migrated PostgreSQL database of
 * their own and a fresh, migrated PGlite in a temporary directory, both copied from templates (see
 * templates.ts). Use with `describe.each(bothDatabases)`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../client';
import { copyMigratedPGlite, createMigratedTestDatabase } from './templates';

export interface OpenedTestDatabase {
  db: Database;
  /** Closes the database and drops the PostgreSQL one (or deletes the PGlite directory). */
  cleanup(): Promise<void>;
}

export const bothDatabases: Array<[name: 'postgres' | 'pglite', open: () => Promise<OpenedTestDatabase>]> = [
  [
    'postgres',
    async () => {
      const test = await createMigratedTestDatabase();
      const db = await openDatabase({ kind: 'postgres', url: test.url });
      return {
        db,
        cleanup: async () => {
          await db.close();
          await test.drop();
        },
      };
    },
  ],
  [
    'pglite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'promptpix-pglite-'));
      const dataDir = join(dir, 'db');
      await copyMigratedPGlite(dataDir);
      const db = await openDatabase({ kind: 'pglite', dataDir });
      return {
        db,
        cleanup: async () => {
          await db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
];
