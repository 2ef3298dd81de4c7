/**
 * Opening the database: PostgreSQL through `@prisma/adapter-pg`, or embedded PGlite (in memory or
 * on disk) on a thread of its own, through `pglite-prisma-adapter` there (pglite-connection.ts),
 * with the `pg_trgm` extension available in both.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/client';
import { openPGlite, type PGliteConnection, type ThreadMemory } from './pglite-connection';
import { pgSqlClient, type SqlClient } from './sql';

export type DatabaseConfig =
  | { kind: 'postgres'; url: string; poolSize?: number }
  /**
   * dataDir undefined: a fresh in-memory database. A missing dataDir is created. thread: PGlite on
   * a worker thread of its own rather than the caller's (pglite-connection.ts).
   */
  | { kind: 'pglite'; dataDir?: string; thread?: boolean };

export interface Database {
  kind: 'postgres' | 'pglite';
  prisma: PrismaClient;
  /** Raw SQL on the same connections, for hot statements (see sql.ts). */
  sql: SqlClient;
  /** The embedded database thread's own memory (PGlite's WebAssembly memory is its external); undefined on PostgreSQL. */
  threadMemory?(): Promise<ThreadMemory | undefined>;
  close(): Promise<void>;
}

/** What migrateDatabase needs to reach an already-open Database. */
export type DatabaseHandle = { kind: 'postgres'; url: string } | { kind: 'pglite'; connection: PGliteConnection; dataDir?: string };

const handles = new WeakMap<Database, DatabaseHandle>();

/** @internal The connection behind a Database opened by openDatabase (undefined for anything else). */
export function databaseHandle(database: Database): DatabaseHandle | undefined {
  return handles.get(database);
}

export function isDatabase(value: DatabaseConfig | Database): value is Database {
  return 'prisma' in value;
}

// --- PGlite instances -------------------------------------------------------------------------
// Two PGlite instances on one data directory in one process corrupt it. Every opener in this
// process (openDatabase, migrateDatabase) therefore shares one instance (or thread) per directory, counted.

interface SharedPGlite {
  connection: Promise<PGliteConnection>;
  refs: number;
}

const sharedPGlites = new Map<string, SharedPGlite>();

/** The PGlite instance for `dataDir`, on this thread or its own (shared with other users of the same directory), and its release. */
export async function acquirePGlite(dataDir?: string, thread = false): Promise<{ connection: PGliteConnection; dataDir?: string; release(): Promise<void> }> {
  if (dataDir === undefined) {
    const connection = await openPGlite(undefined, thread);
    return { connection, release: () => connection.close() };
  }
  const key = resolve(dataDir);
  let shared = sharedPGlites.get(key);
  if (!shared) {
    mkdirSync(key, { recursive: true });
    shared = { connection: openPGlite(key, thread), refs: 0 };
    sharedPGlites.set(key, shared);
    shared.connection.catch(() => sharedPGlites.delete(key));
  }
  shared.refs += 1;
  const entry = shared;
  const connection = await entry.connection;
  let released = false;
  return {
    connection,
    dataDir: key,
    async release() {
      if (released) return;
      released = true;
      entry.refs -= 1;
      if (entry.refs === 0) {
        sharedPGlites.delete(key);
        await connection.close();
      }
    },
  };
}

// --- openDatabase -------------------------------------------------------------------------------

export interface OpenDatabaseOptions {
  /** An idle pooled connection was closed by the server (restart, failover, pg_terminate_backend). */
  onConnectionLost?: (error: Error) => void;
}

export async function openDatabase(config: DatabaseConfig, options: OpenDatabaseOptions = {}): Promise<Database> {
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: config.url, ...(config.poolSize ? { max: config.poolSize } : {}) });
    // Without a listener of our own an idle connection's error is an uncaught exception that ends
    // the process: Prisma's listener is gone before it has connected and after $disconnect, and
    // pool.end() resolves before its connections have finished closing. The pool has already
    // dropped the dead connection and opens a new one on the next query.
    pool.on('error', (error) => options.onConnectionLost?.(error));
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    let closed = false;
    const database: Database = {
      kind: 'postgres',
      prisma,
      sql: pgSqlClient(pool),
      async close() {
        if (closed) return;
        closed = true;
        await prisma.$disconnect();
        await pool.end();
      },
    };
    handles.set(database, { kind: 'postgres', url: config.url });
    return database;
  }

  const shared = await acquirePGlite(config.dataDir, config.thread);
  const prisma = new PrismaClient({ adapter: shared.connection.adapterFactory });
  let closed = false;
  const database: Database = {
    kind: 'pglite',
    prisma,
    sql: shared.connection.sql,
    ...(config.thread && { threadMemory: () => shared.connection.memoryUsage() }),
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect();
      await shared.release();
    },
  };
  handles.set(database, { kind: 'pglite', connection: shared.connection, dataDir: shared.dataDir });
  return database;
}
