/**
 * New migrations: the SQL that takes the committed migrations to the current Prisma schema.
 * The engine replays the migrations folder on a shadow database, an in-memory PGlite, so this
 * needs no PostgreSQL server, CLI or network.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPGlite } from '../pglite';
import { pgliteMigrationFactory } from './adapters';
import { engineError, withSchemaEngine } from './engine';
import { defaultMigrationsDir, MIGRATION_LOCK_CONTENT, MIGRATION_LOCK_FILE, NO_FILTERS, readMigrationList, readSchemaFiles } from './files';

export interface DiffOptions {
  migrationsDir?: string;
  /** Default `<repo root>/prisma/schema.prisma`. */
  schemaPath?: string;
  log?: (line: string) => void;
}

/** True when a script has no statements (only comments and blank lines). */
export function isEmptyMigration(sql: string): boolean {
  return sql
    .split('\n')
    .map((line) => line.trim())
    .every((line) => line === '' || line.startsWith('--'));
}

/** The SQL from the committed migrations to the schema, or null when they already match. */
export async function diffMigrations(options: DiffOptions = {}): Promise<string | null> {
  const migrationsList = readMigrationList(options.migrationsDir);
  const files = readSchemaFiles(options.schemaPath);
  // The engine wants a main connection even though the diff only uses the shadow database.
  const main = await createPGlite();
  const factory = pgliteMigrationFactory(main);
  try {
    const result = await withSchemaEngine(factory, files, options.log, async (engine) => {
      try {
        return await engine.diff({
          // Replayed on a shadow database even when there are none yet: from an empty shadow
          // (which has the public schema) the first migration has no `CREATE SCHEMA "public"`,
          // as with `prisma migrate dev`. A missing lock file is read as the default one.
          from: {
            tag: 'migrations',
            ...migrationsList,
            lockfile: { ...migrationsList.lockfile, content: migrationsList.lockfile.content ?? MIGRATION_LOCK_CONTENT },
          },
          to: { tag: 'schemaDatamodel', files },
          script: true,
          exitCode: null,
          filters: NO_FILTERS,
        });
      } catch (error) {
        throw engineError(error, 'Diffing the migrations against the schema');
      }
    });
    const sql = result.stdout ?? '';
    return isEmptyMigration(sql) ? null : sql.endsWith('\n') ? sql : `${sql}\n`;
  } finally {
    await factory.close().catch(() => undefined);
    await main.close().catch(() => undefined);
  }
}

/** `20240131235959`: the UTC timestamp Prisma puts in front of a migration's name. */
export function migrationTimestamp(date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}` +
    `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}`
  );
}

/** `Add user index` -> `add_user_index` (lowercase letters, digits and underscores). */
export function migrationSlug(name: string): string {
  const slug = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!slug) throw new Error(`Invalid migration name ${JSON.stringify(name)}: use letters, digits and underscores`);
  return slug;
}

export interface CreatedMigration {
  name: string;
  directory: string;
  sql: string;
}

/**
 * Writes `<migrationsDir>/<timestamp>_<name>/migration.sql` (and migration_lock.toml when missing)
 * with the SQL that takes the committed migrations to the schema. Returns null and writes nothing
 * when there is no change.
 */
export async function createMigration(name: string, options: DiffOptions = {}): Promise<CreatedMigration | null> {
  const slug = migrationSlug(name);
  const sql = await diffMigrations(options);
  if (sql === null) return null;
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir();
  const folder = `${migrationTimestamp()}_${slug}`;
  const directory = join(migrationsDir, folder);
  if (existsSync(directory)) throw new Error(`${directory} already exists`);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'migration.sql'), sql);
  const lock = join(migrationsDir, MIGRATION_LOCK_FILE);
  if (!existsSync(lock)) writeFileSync(lock, MIGRATION_LOCK_CONTENT);
  return { name: folder, directory, sql };
}
