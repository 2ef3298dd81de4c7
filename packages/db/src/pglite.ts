/**
 * PGlite and its Prisma adapter, loaded lazily through Node's own CommonJS loader.
 *
 * PGlite's CommonJS build calls `import()` internally (fs, module, zlib...). Inside Jest's VM
 * sandbox that throws ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG unless Jest runs with
 * --experimental-vm-modules (electric-sql/pglite#224), and Jest 30 routes `createRequire` back
 * into its own registry. A `Module` instance's `require` is Node's real loader, which Jest does
 * not intercept, so PGlite works the same under tsx, node and Jest (outside Jest it is exactly
 * what a plain `require` does).
 * pglite-prisma-adapter is loaded the same way so that it shares that PGlite copy (it checks
 * `instanceof DatabaseError` to map errors). Under Jest these objects come from the main realm
 * rather than the test's: Prisma recognises adapter errors by name, so error mapping still works.
 * Loading lazily also keeps PGlite off processes that only use PostgreSQL.
 */
import { Module } from 'node:module';
import { dirname } from 'node:path';
import type * as PGliteModule from '@electric-sql/pglite';
import type * as AdapterModule from 'pglite-prisma-adapter';
import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  Transaction,
} from '@prisma/driver-adapter-utils';

export type PGlite = PGliteModule.PGlite;

interface PGliteModules {
  PGlite: typeof PGliteModule.PGlite;
  PrismaPGlite: typeof AdapterModule.PrismaPGlite;
}

let modules: PGliteModules | undefined;

function nativeRequire(id: string): unknown {
  const ModuleClass = Module as unknown as {
    new (id: string): { filename: string; paths: string[]; require(id: string): unknown };
    _nodeModulePaths(from: string): string[];
  };
  const loader = new ModuleClass(__filename);
  loader.filename = __filename;
  loader.paths = ModuleClass._nodeModulePaths(dirname(__filename));
  return loader.require(id);
}

export function pgliteModules(): PGliteModules {
  if (!modules) {
    modules = {
      PGlite: (nativeRequire('@electric-sql/pglite') as typeof PGliteModule).PGlite,
      PrismaPGlite: (nativeRequire('pglite-prisma-adapter') as typeof AdapterModule).PrismaPGlite,
    };
  }
  return modules;
}

/**
 * PostgreSQL's default shared_buffers (128MB) lives inside PGlite's WebAssembly memory and is all
 * touched at start-up: 128MB of resident memory before the first query. The embedded database is
 * one process's, small, and read through the OS page cache anyway; 16MB took the embedded
 * service's RSS from about 370 to about 220 MB at open (measured; docs/performance.md).
 */
export const PGLITE_SHARED_BUFFERS = '16MB';

/** Every PGlite instance's extensions: name → [module, export], so the database thread can load the same ones. */
export const PGLITE_EXTENSIONS: Record<string, [moduleId: string, exportName: string]> = {
  pg_trgm: ['@electric-sql/pglite/contrib/pg_trgm', 'pg_trgm'],
};

/** PostgreSQL settings of every PGlite instance (after PGlite's own defaults). */
export function pgliteStartParams(): string[] {
  const { PGlite } = pgliteModules();
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];
}

/** A new PGlite instance on this thread (in memory when dataDir is undefined); the service's own runs on a thread of its own (pglite-connection.ts). */
export function createPGlite(dataDir?: string): Promise<PGlite> {
  const { PGlite } = pgliteModules();
  const extensions = Object.fromEntries(
    Object.entries(PGLITE_EXTENSIONS).map(([name, [moduleId, exportName]]) => [name, (nativeRequire(moduleId) as Record<string, unknown>)[exportName]]),
  );
  return PGlite.create({ ...(dataDir ? { dataDir } : {}), extensions: extensions as never, startParams: pgliteStartParams() });
}

/**
 * Under Jest, values built in the test's realm (a `Date` from Prisma or the schema engine) fail
 * the `instanceof Date` checks of the adapter and PGlite, which live in the main realm ("Invalid
 * input for date type"). Dates are passed on as ISO strings, which both accept for any
 * date/time parameter; everything else passes through. Outside Jest this changes nothing.
 */
export function realmSafeArg(arg: unknown): unknown {
  if (Array.isArray(arg)) return arg.map(realmSafeArg);
  if (Object.prototype.toString.call(arg) === '[object Date]') return (arg as Date).toISOString();
  return arg;
}

function realmSafeQueryable<T extends SqlQueryable>(queryable: T): T {
  const queryRaw = queryable.queryRaw.bind(queryable);
  const executeRaw = queryable.executeRaw.bind(queryable);
  queryable.queryRaw = (query: SqlQuery) => queryRaw({ ...query, args: query.args.map(realmSafeArg) });
  queryable.executeRaw = (query: SqlQuery) => executeRaw({ ...query, args: query.args.map(realmSafeArg) });
  return queryable;
}

/** A PGlite driver adapter made safe to use from Jest's realm (see realmSafeArg). */
export function realmSafeAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  realmSafeQueryable(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel?: IsolationLevel): Promise<Transaction> => realmSafeQueryable(await startTransaction(isolationLevel));
  return adapter;
}

/** The Prisma driver adapter factory for a PGlite instance (pglite-prisma-adapter, realm-safe). */
export function pgliteAdapterFactory(pglite: PGlite): SqlMigrationAwareDriverAdapterFactory {
  const { PrismaPGlite } = pgliteModules();
  const inner = new PrismaPGlite(pglite);
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => realmSafeAdapter(await inner.connect()),
    connectToShadowDb: async () => realmSafeAdapter(await inner.connectToShadowDb()),
  };
}
