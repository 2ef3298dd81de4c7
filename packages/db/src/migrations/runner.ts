/**
 * Applies the committed `prisma/migrations` folder with the wasm schema engine, over a driver
 * adapter: the same work and the same `_prisma_migrations` bookkeeping (checksum = sha256 of
 * migration.sql) as an online `prisma migrate deploy`, with no CLI, binary or network.
 *
 * Targets: a DatabaseConfig, or an already-open Database (from openDatabase).
 * - PostgreSQL: a private single-connection pool is opened for the run and closed afterwards.
 * - PGlite on disk: the process shares one PGlite instance per data directory (see client.ts), so
 *   migrating a directory that is open in this process reuses that instance instead of opening a
 *   second one (two instances on one directory corrupt it). Migrating before or after
 *   openDatabase are both safe.
 * - PGlite in memory: a config without dataDir would migrate a throwaway instance; pass the open
 *   Database instead (`migrateDatabase(await openDatabase({ kind: 'pglite' }))`).
 * Migrate before serving traffic: the engine and the Prisma client share the PGlite session.
 */
import { acquirePGlite, databaseHandle, isDatabase, type Database, type DatabaseConfig } from '../client';
import { pgliteMigrationFactory, postgresMigrationFactory, type ClosableAdapterFactory } from './adapters';
import { engineError, withSchemaEngine, type SchemaEngine } from './engine';
import { NO_FILTERS, readMigrationList, readSchemaFiles } from './files';

export interface MigrateOptions {
  /** The migrations folder; default `<repo root>/prisma/migrations`, whatever the cwd. */
  migrationsDir?: string;
  /** Receives the schema engine's log lines. */
  log?: (line: string) => void;
}

export interface MigrationStatus {
  /** Migrations in the folder that the database has not applied, in order. */
  pending: string[];
  /** Migrations recorded as failed in `_prisma_migrations`. */
  failed: string[];
  /** Applied migrations whose migration.sql changed since (checksum mismatch). */
  edited: string[];
  /** Whether `_prisma_migrations` exists yet. */
  hasMigrationsTable: boolean;
}

async function withTargetEngine<T>(target: DatabaseConfig | Database, log: MigrateOptions['log'], work: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  let factory: ClosableAdapterFactory;
  let release: () => Promise<void> = async () => undefined;
  if (isDatabase(target)) {
    const handle = databaseHandle(target);
    if (!handle) throw new Error('migrateDatabase: this Database was not opened by openDatabase');
    factory = handle.kind === 'postgres' ? postgresMigrationFactory(handle.url) : pgliteMigrationFactory(handle.connection);
  } else if (target.kind === 'postgres') {
    factory = postgresMigrationFactory(target.url);
  } else {
    const shared = await acquirePGlite(target.dataDir, target.thread);
    factory = pgliteMigrationFactory(shared.connection);
    release = shared.release;
  }
  try {
    return await withSchemaEngine(factory, readSchemaFiles(), log, work);
  } finally {
    await factory.close().catch(() => undefined);
    await release();
  }
}

/**
 * Applies every migration of the folder that the database has not applied yet.
 * `applied` lists the ones applied by this call: empty when the database was up to date.
 */
export async function migrateDatabase(target: DatabaseConfig | Database, options: MigrateOptions = {}): Promise<{ applied: string[] }> {
  const migrationsList = readMigrationList(options.migrationsDir);
  return withTargetEngine(target, options.log, async (engine) => {
    try {
      const result = await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });
      return { applied: result.appliedMigrationNames };
    } catch (error) {
      throw engineError(error, `Applying migrations from ${migrationsList.baseDir}`);
    }
  });
}

/** Which migrations of the folder are pending (and failed/edited ones), without applying anything. */
export async function migrationStatus(target: DatabaseConfig | Database, options: MigrateOptions = {}): Promise<MigrationStatus> {
  const migrationsList = readMigrationList(options.migrationsDir);
  return withTargetEngine(target, options.log, async (engine) => {
    let result: Awaited<ReturnType<typeof engine.diagnoseMigrationHistory>>;
    try {
      result = await engine.diagnoseMigrationHistory({ migrationsList, optInToShadowDatabase: false, filters: NO_FILTERS });
    } catch (error) {
      throw engineError(error, `Reading the migration history against ${migrationsList.baseDir}`);
    }
    const all = migrationsList.migrationDirectories.map((directory) => directory.path);
    let pending: string[] = [];
    if (!result.hasMigrationsTable) pending = all;
    else if (result.history?.diagnostic === 'databaseIsBehind' || result.history?.diagnostic === 'historiesDiverge') {
      pending = result.history.unappliedMigrationNames;
    }
    return {
      pending,
      failed: result.failedMigrationNames,
      edited: result.editedMigrationNames,
      hasMigrationsTable: result.hasMigrationsTable,
    };
  });
}
