// The embedded database's own thread: one PGlite instance and its Prisma driver adapter, driven
// by messages from the thread that opened it (pglite-connection.ts holds the other end and the
// message types). PostgreSQL-in-WebAssembly runs each statement synchronously on the thread it
// lives on; here that is not the HTTP server's.
//
// Plain CommonJS on purpose: a worker thread is a fresh Node context that Jest's and tsx's
// TypeScript transforms do not reach, and it is loaded from this folder both from source and from
// the dist/ bundles. It only requires third-party packages.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite, messages } = require('@electric-sql/pglite');
const { PrismaPGlite } = require('pglite-prisma-adapter');

/** workerData: { dataDir?: string, startParams: string[], extensions: Record<name, [module, export]> } */
async function open() {
  const extensions = {};
  for (const [name, [moduleId, exportName]] of Object.entries(workerData.extensions)) extensions[name] = require(moduleId)[exportName];
  const pglite = await PGlite.create({ ...(workerData.dataDir ? { dataDir: workerData.dataDir } : {}), extensions, startParams: workerData.startParams });
  const adapter = await new PrismaPGlite(pglite).connect();
  return { pglite, adapter };
}

/** What the other thread needs to rebuild an error: Prisma's DriverAdapterError by its cause, PostgreSQL's fields. */
function serializeError(error) {
  const e = error ?? {};
  const fields = {};
  for (const key of ['code', 'severity', 'detail', 'hint', 'column', 'constraint', 'table', 'schema', 'position', 'where']) {
    if (typeof e[key] === 'string') fields[key] = e[key];
  }
  return {
    name: typeof e.name === 'string' ? e.name : 'Error',
    message: typeof e.message === 'string' ? e.message : String(error),
    stack: typeof e.stack === 'string' ? e.stack : undefined,
    cause: e.name === 'DriverAdapterError' && e.cause && typeof e.cause === 'object' ? { ...e.cause } : undefined,
    fields,
  };
}

/** A script's PostgreSQL error as Prisma's driver error (the adapter's own executeScript neither awaits nor maps it). */
function scriptError(error) {
  if (!(error instanceof messages.DatabaseError)) return serializeError(error);
  const cause = {
    kind: 'postgres',
    code: error.code,
    severity: error.severity ?? 'ERROR',
    message: error.message,
    detail: error.detail,
    column: error.column,
    hint: error.hint,
  };
  return { ...serializeError(error), name: 'DriverAdapterError', cause };
}

async function main() {
  const { pglite, adapter } = await open();
  const transactions = new Map();
  let nextTransaction = 1;
  const queryable = (tx) => {
    if (tx === undefined) return adapter;
    const transaction = transactions.get(tx);
    if (!transaction) throw new Error(`No open transaction ${tx} on the embedded database thread`);
    return transaction;
  };

  const handlers = {
    queryRaw: ({ query, tx }) => queryable(tx).queryRaw(query),
    executeRaw: ({ query, tx }) => queryable(tx).executeRaw(query),
    async executeScript({ script }) {
      try {
        await pglite.exec(script);
      } catch (error) {
        throw Object.assign(new Error('script failed'), { serialized: scriptError(error) });
      }
    },
    async startTransaction({ isolationLevel }) {
      const transaction = await adapter.startTransaction(isolationLevel);
      const tx = nextTransaction++;
      transactions.set(tx, transaction);
      return { tx, options: transaction.options };
    },
    async commit({ tx }) {
      const transaction = queryable(tx);
      transactions.delete(tx);
      await transaction.commit();
    },
    async rollback({ tx }) {
      const transaction = queryable(tx);
      transactions.delete(tx);
      await transaction.rollback();
    },
    async query({ text, params }) {
      return (await pglite.query(text, params)).rows;
    },
    async execute({ text, params }) {
      return (await pglite.query(text, params)).affectedRows ?? 0;
    },
    async copy({ text, csv }) {
      await pglite.query(text, [], { blob: new Blob([csv]) });
    },
    memoryUsage: () => process.memoryUsage(),
  };

  parentPort.on('message', async (message) => {
    if (message.op === 'close') {
      await pglite.close().catch(() => undefined);
      parentPort.postMessage({ id: message.id, ok: true });
      parentPort.close();
      return;
    }
    try {
      const handler = handlers[message.op];
      if (!handler) throw new Error(`Unknown embedded database operation ${message.op}`);
      parentPort.postMessage({ id: message.id, ok: true, value: await handler(message) });
    } catch (error) {
      parentPort.postMessage({ id: message.id, ok: false, error: error.serialized ?? serializeError(error) });
    }
  });
  parentPort.postMessage({ ready: true, adapterName: adapter.adapterName });
}

main().catch((error) => parentPort.postMessage({ ready: false, error: serializeError(error) }));
