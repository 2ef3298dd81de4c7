/**
 * Migrated databases for tests, built once and copied. Replaying every migration through the wasm
 * schema engine for each test file, and PGlite's initdb for each embedded service (2–6 s each on a
 * busy 2-core machine), were a large share of the integration suite's time.
 *
 * - PostgreSQL: a template database `promptpix_template_<fingerprint>`, cloned by the server with
 *   `CREATE DATABASE … TEMPLATE` (a file copy, no SQL replayed).
 * - PGlite: a closed, migrated data directory under the OS temp folder, copied per database.
 *
 * The fingerprint covers the migrations folder (and PGlite's version, for its directory), so a new
 * or edited migration gets a new template and an up-to-date one is reused by later runs. A template
 * is built under a private name and renamed into place, so parallel builders (Jest workers, other
 * checkouts on the same server) never see a half-built one.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, TEST_POSTGRES } from './postgres';
import { openDatabase } from '../client';
import { findRepoRoot, readMigrationList } from '../migrations/files';
import { migrateDatabase } from '../migrations/runner';

/** sha256 of the migrations folder as the schema engine reads it. */
export function migrationsFingerprint(): string {
  const list = readMigrationList();
  const hash = createHash('sha256').update(list.lockfile.content ?? '');
  for (const directory of list.migrationDirectories) {
    hash.update(`\0${directory.path}\0${directory.migrationFile.content.tag}\0${directory.migrationFile.content.value}`);
  }
  return hash.digest('hex').slice(0, 16);
}

const DUPLICATE_DATABASE = '42P04';

async function withAdminClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ ...TEST_POSTGRES, database: 'postgres' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Waits until no session is connected to `database` (a closed pool's sockets close a moment later). */
async function waitForNoSessions(client: Client, database: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database]);
    if (rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`sessions still connected to ${database}`);
}

async function buildPostgresTemplate(name: string): Promise<void> {
  const exists = await withAdminClient((client) => client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]));
  if (exists.rowCount) return;
  const build = await createTestDatabase();
  try {
    await migrateDatabase({ kind: 'postgres', url: build.url });
    await withAdminClient(async (client) => {
      await waitForNoSessions(client, build.name);
      await client.query(`ALTER DATABASE "${build.name}" RENAME TO "${name}"`);
    });
  } catch (error) {
    await build.drop();
    // Another run finished the same template first: use theirs.
    if ((error as { code?: string }).code !== DUPLICATE_DATABASE) throw error;
  }
}

/** `make` run once per process (again after a failure); later callers share its result. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () =>
    (result ??= make().catch((error: unknown) => {
      result = undefined;
      throw error;
    }));
}

/** The name of a PostgreSQL database holding every committed migration, built on first use. */
export const migratedPostgresTemplate = once(async () => {
  const name = `promptpix_template_${migrationsFingerprint()}`;
  await buildPostgresTemplate(name);
  return name;
});

/** A fresh PostgreSQL test database with every committed migration applied (a clone of the template). */
export async function createMigratedTestDatabase() {
  return createTestDatabase({ template: await migratedPostgresTemplate() });
}

function pgliteVersion(): string {
  const manifest = join(findRepoRoot(), 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

const templatesRoot = () => join(tmpdir(), 'promptpix-test-templates');

async function buildPGliteTemplate(target: string): Promise<void> {
  if (existsSync(target)) return;
  mkdirSync(templatesRoot(), { recursive: true });
  const build = mkdtempSync(join(templatesRoot(), `build-${randomBytes(4).toString('hex')}-`));
  try {
    const db = await openDatabase({ kind: 'pglite', dataDir: build });
    try {
      await migrateDatabase(db);
    } finally {
      await db.close();
    }
    renameSync(build, target);
  } catch (error) {
    rmSync(build, { recursive: true, force: true });
    // Another run finished the same template first: use theirs.
    if (!existsSync(target)) throw error;
  }
}

/** A closed PGlite data directory holding every committed migration, built on first use. Never open it: copy it. */
export const migratedPGliteTemplate = once(async () => {
  const target = join(templatesRoot(), `pglite-${pgliteVersion()}-${migrationsFingerprint()}`);
  await buildPGliteTemplate(target);
  return target;
});

/**
 * Makes `dataDir` (which must not exist yet) a migrated PGlite data directory. On Linux GNU cp
 * copies it: fs.cpSync took 0.9 s of CPU for its 1,000 files and 40 MB, most of an embedded test
 * service's start-up; cp takes 0.2 s, and leaves the zeroed half of the WAL segment as a hole.
 */
export async function copyMigratedPGlite(dataDir: string): Promise<void> {
  const template = await migratedPGliteTemplate();
  if (existsSync(dataDir)) throw new Error(`${dataDir} already exists`);
  if (process.platform !== 'linux') {
    cpSync(template, dataDir, { recursive: true, errorOnExist: true, force: false });
    return;
  }
  const copy = spawnSync('cp', ['-R', '--sparse=always', template, dataDir], { encoding: 'utf8' });
  if (copy.status !== 0) throw new Error(`copying the PGlite template failed: ${copy.stderr || copy.error?.message}`);
}

/** Builds both templates (Jest's global setup calls this before any worker starts). */
export async function prepareTestTemplates(): Promise<void> {
  await migratedPostgresTemplate();
  await migratedPGliteTemplate();
}
