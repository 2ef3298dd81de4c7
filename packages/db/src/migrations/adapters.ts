/**
 * Driver adapter factories for the schema engine (main connection + shadow database).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { createPGlite, pgliteAdapterFactory, type PGlite } from '../pglite';
import type { PGliteConnection } from '../pglite-connection';
import { awaitScripts } from '../pglite-scripts';

export interface ClosableAdapterFactory extends SqlMigrationAwareDriverAdapterFactory {
  /** Closes every connection this factory opened (not those it was given). */
  close(): Promise<void>;
}

/**
 * PGlite: the main connection is the given database thread (its scripts are awaited and their
 * errors mapped there, see pglite-thread.cjs) or an instance on this thread (`diff` uses one);
 * never closed here: its owner closes it. Each shadow database is a fresh in-memory PGlite with
 * pg_trgm on this thread, closed when the engine lets go of it or at close().
 */
export function pgliteMigrationFactory(target: PGliteConnection | PGlite): ClosableAdapterFactory {
  const main = 'adapterFactory' in target ? target.adapterFactory : pgliteAdapterFactory(target);
  const shadows = new Set<PGlite>();
  return {
    provider: 'postgres',
    adapterName: main.adapterName,
    connect: async () => ('adapterFactory' in target ? main.connect() : awaitScripts(await main.connect(), target)),
    async connectToShadowDb() {
      const shadow = await createPGlite();
      shadows.add(shadow);
      const adapter = awaitScripts(await pgliteAdapterFactory(shadow).connect(), shadow);
      adapter.dispose = async () => {
        if (shadows.delete(shadow)) await shadow.close();
      };
      return adapter;
    },
    async close() {
      const open = [...shadows];
      shadows.clear();
      await Promise.all(open.map((shadow) => shadow.close().catch(() => undefined)));
    },
  };
}

/**
 * PostgreSQL: one connection (max 1), so the engine's session-level advisory lock is taken and
 * released on the same session. No shadow database: applying migrations does not need one, and
 * diffs use PGlite.
 */
export function postgresMigrationFactory(url: string): ClosableAdapterFactory {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => undefined);
  const main = new PrismaPg(pool);
  let ended = false;
  return {
    provider: 'postgres',
    adapterName: main.adapterName,
    connect: () => main.connect(),
    connectToShadowDb: () => Promise.reject(new Error('No shadow database for PostgreSQL here: diff against PGlite')),
    async close() {
      if (ended) return;
      ended = true;
      await pool.end();
    },
  };
}
