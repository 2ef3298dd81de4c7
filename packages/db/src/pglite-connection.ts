/**
 * The embedded database, on the caller's thread or on a thread of its own (EMBEDDED_DATABASE_THREAD).
 *
 * On a thread of its own: PGlite (PostgreSQL compiled to WebAssembly) runs
 * every statement synchronously on the thread that holds it; in the HTTP server's thread each
 * analytics batch, key lookup and migration stalled every request in flight. Here PGlite and its
 * Prisma adapter live in a worker thread (pglite-thread.cjs), and this side forwards Prisma's
 * driver-adapter calls and our raw SQL to it as messages: only structured-clone copies of the
 * arguments and rows cross, on no socket and no port another process could reach.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  DriverAdapterError,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
  type TransactionOptions,
} from '@prisma/driver-adapter-utils';
import { awaitScripts } from './pglite-scripts';
import { createPGlite, PGLITE_EXTENSIONS, pgliteAdapterFactory, pgliteStartParams, realmSafeArg, type PGlite } from './pglite';
import { csvRecord, type SqlClient } from './sql';

/** An error as the database thread sends it (pglite-thread.cjs, serializeError). */
interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  cause?: Record<string, unknown>;
  fields: Record<string, string>;
}

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };
type Ready = { ready: true; adapterName: string } | { ready: false; error: SerializedError };

/** The database thread's own memory (its V8 isolate; external holds PGlite's WebAssembly memory). */
export interface ThreadMemory {
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** Where the embedded database runs: `thread` starts PGlite on a worker thread of its own. */
export async function openPGlite(dataDir: string | undefined, thread: boolean): Promise<PGliteConnection> {
  if (thread) return startPGliteThread(dataDir);
  return inProcessPGlite(await createPGlite(dataDir));
}

/** PGlite on this thread, behind the same interface as the thread's. */
export function inProcessPGlite(pglite: PGlite): PGliteConnection {
  const factory = pgliteAdapterFactory(pglite);
  return {
    threadId: 0,
    adapterFactory: {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: async () => awaitScripts(await factory.connect(), pglite),
      connectToShadowDb: () => factory.connectToShadowDb(),
    },
    sql: {
      async query<Row>(text: string, params: readonly unknown[]) {
        return (await pglite.query<Row>(text, params.map(realmSafeArg))).rows;
      },
      async execute(text, params) {
        return (await pglite.query(text, params.map(realmSafeArg))).affectedRows ?? 0;
      },
      async copyRows(table, columns, rows) {
        if (rows.length === 0) return 0;
        const csv = rows.map(csvRecord).join('\n');
        await pglite.query(`COPY "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) FROM '/dev/blob' WITH (FORMAT csv)`, [], { blob: new Blob([csv]) });
        return rows.length;
      },
    },
    executeScript: async (script) => {
      await pglite.exec(script);
    },
    memoryUsage: async () => undefined,
    close: () => pglite.close(),
  };
}

export interface PGliteConnection {
  /** Prisma's driver adapter over the thread (also what the schema engine migrates through). */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** Raw SQL on the same instance. */
  sql: SqlClient;
  /** Runs a multi-statement script, awaited (migrations). */
  executeScript(script: string): Promise<void>;
  /** The database thread's memory (undefined once it has stopped). */
  memoryUsage(): Promise<ThreadMemory | undefined>;
  /** The worker thread's id (0: PGlite runs on the caller's thread). */
  threadId: number;
  close(): Promise<void>;
}

function rebuildError(error: SerializedError): Error {
  if (error.name === 'DriverAdapterError' && error.cause) return new DriverAdapterError(error.cause as ConstructorParameters<typeof DriverAdapterError>[0]);
  const rebuilt = Object.assign(new Error(error.message), error.fields);
  rebuilt.name = error.name;
  if (error.stack) rebuilt.stack = error.stack;
  return rebuilt;
}

const THREAD_FILE = join(__dirname, 'pglite-thread.cjs');

/** Starts PGlite on a new worker thread (in memory when dataDir is undefined) and resolves once it is open. */
export async function startPGliteThread(dataDir?: string): Promise<PGliteConnection> {
  const worker = new Worker(THREAD_FILE, {
    workerData: { dataDir, startParams: pgliteStartParams(), extensions: PGLITE_EXTENSIONS },
    // PGlite's own output goes to this process's stdio, as it did on the main thread.
    stdout: false,
    stderr: false,
    // PGlite allocates little JavaScript per statement (its rows); a small young generation keeps
    // the thread's heap near what it holds. The old generation is left unbounded: running out
    // would end the thread, and with it the database.
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let stopped: Error | undefined;
  let closingNow = false;

  // A thread with a call in flight keeps the process alive; an idle one does not (like a pool's idle sockets).
  const settle = () => {
    if (pending.size === 0 && !closingNow) worker.unref();
  };

  const adapterName = await new Promise<string>((resolve, reject) => {
    const onMessage = (message: Ready) => {
      worker.off('error', reject);
      if (message.ready) resolve(message.adapterName);
      else reject(rebuildError(message.error));
    };
    worker.once('message', onMessage);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`The embedded database thread stopped while opening (exit code ${code})`)));
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });

  const failAll = (error: Error) => {
    stopped ??= error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  worker.on('message', (reply: Reply) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    settle();
    if (reply.ok) call.resolve(reply.value);
    else call.reject(rebuildError(reply.error));
  });
  worker.on('error', (error) => failAll(new Error(`The embedded database thread failed: ${error.message}`)));
  worker.on('exit', (code) => failAll(new Error(`The embedded database thread has stopped (exit code ${code})`)));
  settle();

  function call<T>(op: string, payload: Record<string, unknown> = {}): Promise<T> {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (pending.size === 1) worker.ref();
      worker.postMessage({ id, op, ...payload });
    });
  }

  const queryable = (tx?: number) => ({
    provider: 'postgres' as const,
    adapterName,
    queryRaw: (query: SqlQuery) => call<SqlResultSet>('queryRaw', { query, tx }),
    executeRaw: (query: SqlQuery) => call<number>('executeRaw', { query, tx }),
  });

  const adapter = (): SqlDriverAdapter => ({
    ...queryable(),
    executeScript: (script) => call<void>('executeScript', { script }),
    async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
      const { tx, options } = await call<{ tx: number; options: TransactionOptions }>('startTransaction', { isolationLevel });
      return {
        ...queryable(tx),
        options,
        commit: () => call<void>('commit', { tx }),
        rollback: () => call<void>('rollback', { tx }),
      };
    },
    dispose: async () => undefined,
  });

  let closing: Promise<void> | undefined;
  return {
    threadId: worker.threadId,
    adapterFactory: {
      provider: 'postgres',
      adapterName,
      connect: async () => adapter(),
      connectToShadowDb: () =>
        Promise.reject(new Error('The embedded database thread has no shadow database: diff against an in-memory PGlite (migrations/diff.ts)')),
    },
    sql: {
      query: <Row>(text: string, params: readonly unknown[]) => call<Row[]>('query', { text, params }),
      execute: (text, params) => call<number>('execute', { text, params }),
      async copyRows(table, columns, rows) {
        if (rows.length === 0) return 0;
        const text = `COPY "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) FROM '/dev/blob' WITH (FORMAT csv)`;
        await call<void>('copy', { text, csv: rows.map(csvRecord).join('\n') });
        return rows.length;
      },
    },
    executeScript: (script) => call<void>('executeScript', { script }),
    memoryUsage: () => (stopped ? Promise.resolve(undefined) : call<ThreadMemory>('memoryUsage')),
    close() {
      closing ??= (async () => {
        if (stopped) return;
        closingNow = true;
        worker.ref();
        // PGlite closes its files there first; then the thread is ended, whatever it still holds.
        await call<void>('close').catch(() => undefined);
        await worker.terminate();
      })();
      return closing;
    },
  };
}
