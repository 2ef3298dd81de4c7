import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@promptpix/testing';
import { openDatabase, type Database } from '../client';
import { releaseSchemaEngine } from './engine';
import { defaultMigrationsDir, readMigrationList } from './files';
import { migrateDatabase, migrationStatus } from './runner';

const TABLES = ['Account', 'AnalyticsEvent', 'ApiKey', 'Image', '_prisma_migrations'];

const committed = readMigrationList().migrationDirectories.map((directory) => ({
  name: directory.path,
  checksum: createHash('sha256')
    .update(readFileSync(join(defaultMigrationsDir(), directory.path, 'migration.sql')))
    .digest('hex'),
}));

async function tablesOf(db: Database): Promise<string[]> {
  const rows = await db.prisma.$queryRaw<Array<{ tablename: string }>>`
    SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`;
  return rows.map((row) => row.tablename).sort();
}

async function migrationRows(db: Database) {
  return db.prisma.$queryRaw<Array<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>>`
    SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY migration_name`;
}

async function expectMigrated(db: Database) {
  expect(await tablesOf(db)).toEqual(expect.arrayContaining(TABLES));
  const rows = await migrationRows(db);
  expect(rows.map((row) => ({ name: row.migration_name, checksum: row.checksum }))).toEqual(committed);
  for (const row of rows) {
    expect(row.finished_at).not.toBeNull();
    expect(row.rolled_back_at).toBeNull();
  }
}

async function roundTrip(db: Database) {
  const account = await db.prisma.account.create({
    data: {
      handle: `acct-${Date.now()}`,
      email: 'someone@example.com',
      keys: { create: { kind: 'secret', name: 'default', hash: `h-${Date.now()}`, hint: 'sk_live_Ab12', domains: ['example.com'] } },
    },
  });
  expect(account.plan).toBe('free');
  expect(account.status).toBe('pending');
  const found = await db.prisma.account.findUnique({ where: { id: account.id }, include: { keys: true } });
  expect(found?.email).toBe('someone@example.com');
  expect(found?.keys).toHaveLength(1);
  expect(found?.keys[0].domains).toEqual(['example.com']);
  // Driver errors map to Prisma's known errors (unique violation -> P2002) on both databases.
  await expect(db.prisma.account.create({ data: { handle: account.handle, email: 'x@example.com' } })).rejects.toMatchObject({
    code: 'P2002',
  });
}

jest.setTimeout(60_000);

test('the migrations folder holds at least the init migration', () => {
  expect(committed.length).toBeGreaterThan(0);
  expect(committed[0].name).toMatch(/^\d{14}_init$/);
  expect(readMigrationList().lockfile.content).toContain('provider = "postgresql"');
});

describe('PostgreSQL', () => {
  let testDb: TestDatabase;
  let db: Database | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  test('a fresh database gets every migration; a second run applies nothing; Prisma works', async () => {
    const config = { kind: 'postgres' as const, url: testDb.url };
    expect((await migrationStatus(config)).pending).toEqual(committed.map((m) => m.name));

    expect(await migrateDatabase(config)).toEqual({ applied: committed.map((m) => m.name) });
    expect(await migrateDatabase(config)).toEqual({ applied: [] });
    expect(await migrationStatus(config)).toEqual({ pending: [], failed: [], edited: [], hasMigrationsTable: true });

    db = await openDatabase({ ...config, poolSize: 2 });
    expect(db.kind).toBe('postgres');
    await expectMigrated(db);
    expect(await migrateDatabase(db)).toEqual({ applied: [] });
    await roundTrip(db);
  });
});

describe('PGlite', () => {
  test('in memory: migrating the open Database, then a second run applies nothing; Prisma works', async () => {
    const db = await openDatabase({ kind: 'pglite' });
    try {
      expect(db.kind).toBe('pglite');
      expect((await migrationStatus(db)).pending).toEqual(committed.map((m) => m.name));
      expect(await migrateDatabase(db)).toEqual({ applied: committed.map((m) => m.name) });
      // The server lets the engine go after its start-up migration; a later use loads a fresh one.
      releaseSchemaEngine();
      expect(await migrateDatabase(db)).toEqual({ applied: [] });
      await expectMigrated(db);
      await roundTrip(db);
      // pg_trgm is loaded, so trigram work runs here as it does on PostgreSQL.
      await db.prisma.$executeRawUnsafe('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      const [row] = await db.prisma.$queryRaw<Array<{ s: number }>>`SELECT similarity('sunset over sea', 'sunset at sea') AS s`;
      expect(row.s).toBeGreaterThan(0.3);

      // A failing migration rejects with the database's message and is recorded as failed, not applied.
      const migrationsDir = mkdtempSync(join(tmpdir(), 'promptpix-migrations-'));
      try {
        cpSync(defaultMigrationsDir(), migrationsDir, { recursive: true });
        mkdirSync(join(migrationsDir, '99990101000000_broken'));
        writeFileSync(join(migrationsDir, '99990101000000_broken', 'migration.sql'), 'SELECT * FROM "NoSuchTable";\n');
        await expect(migrateDatabase(db, { migrationsDir })).rejects.toThrow(/NoSuchTable/);
        expect(await migrationStatus(db, { migrationsDir })).toMatchObject({ failed: ['99990101000000_broken'] });
      } finally {
        rmSync(migrationsDir, { recursive: true, force: true });
      }
    } finally {
      await db.close();
    }
  });

  test('on disk: migrate by config (directory created), also while open, then reopen', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'promptpix-db-'));
    const dataDir = join(parent, 'nested', 'db');
    try {
      expect(await migrateDatabase({ kind: 'pglite', dataDir })).toEqual({ applied: committed.map((m) => m.name) });
      const db = await openDatabase({ kind: 'pglite', dataDir });
      try {
        // Same directory, same process: shares the open instance instead of opening a second one.
        expect(await migrateDatabase({ kind: 'pglite', dataDir })).toEqual({ applied: [] });
        await expectMigrated(db);
        await roundTrip(db);
      } finally {
        await db.close();
      }
      const reopened = await openDatabase({ kind: 'pglite', dataDir });
      try {
        expect(await reopened.prisma.account.count()).toBe(1);
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
