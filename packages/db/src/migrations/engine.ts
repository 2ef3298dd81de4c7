/**
 * Loads the Prisma schema engine (WebAssembly build, `@prisma/schema-engine-wasm`) and runs it
 * over a driver adapter. No native binary, no network: migrations work on a fresh machine.
 *
 * The package ships wasm-bindgen glue as an ES module (`schema_engine_bg.js`) that expects a
 * bundler to wire the `.wasm` in. Node 20's `require` cannot load ES modules, and neither can
 * Jest's module system (node_modules are not transformed), so the glue is evaluated here from its
 * source with the `export` keywords stripped, and the `.wasm` is instantiated against it by hand
 * (`__wbg_set_wasm` + `__wbindgen_start`, as the package's own entry point does).
 *
 * The instance is created once per module registry (once per process in the service; once per
 * test file under Jest, each with its own fresh glue, so instances never share state).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

export type { SchemaEngine } from '@prisma/schema-engine-wasm';

interface EngineModule {
  SchemaEngine: typeof SchemaEngine;
  version(): string;
}

interface WasmGlue extends EngineModule {
  __wbg_set_wasm(exports: WebAssembly.Exports): void;
  [name: string]: unknown;
}

let loading: Promise<EngineModule> | undefined;
let lastPanic: string | undefined;

/** The schema engine's wasm module, instantiated on first use and reused afterwards. */
export function loadSchemaEngine(): Promise<EngineModule> {
  loading ??= instantiate().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * Lets the loaded engine be garbage collected (its WebAssembly code and memory, about 25 MB of
 * RSS); the next use instantiates a fresh one from fresh glue. The service calls it once its
 * start-up migration is done, since it never migrates again.
 */
export function releaseSchemaEngine(): void {
  loading = undefined;
}

async function instantiate(): Promise<EngineModule> {
  const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const wasmPath = join(dirname(gluePath), 'schema_engine_bg.wasm');

  const exported: string[] = [];
  const body = readFileSync(gluePath, 'utf8').replace(/^export (function|class) ([A-Za-z0-9_$]+)/gm, (_match, kind: string, name: string) => {
    exported.push(name);
    return `${kind} ${name}`;
  });
  if (/^\s*(export|import)\b/m.test(body) || !exported.includes('__wbg_set_wasm') || !exported.includes('SchemaEngine')) {
    throw new Error(`Unexpected layout of ${gluePath}: the schema engine loader needs updating for this version`);
  }
  // The glue reads `module.require` (crypto fallback) and `global.PRISMA_WASM_PANIC_REGISTRY`
  // (panics). Its timers are never cleared (it imports no clearTimeout): the engine arms a 10 s
  // timeout around each advisory lock, which would hold the process open for 10 s after a
  // migration. They are unref'd here; withSchemaEngine keeps the process alive while it works.
  const unrefTimeout = (callback: () => void, ms: number) => {
    const timer = setTimeout(callback, ms);
    timer.unref?.();
    return timer;
  };
  const glue = new Function('module', 'global', 'setTimeout', `${body}\nreturn { ${exported.join(', ')} };`)({ require }, globalThis, unrefTimeout) as WasmGlue;
  const registry = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
  registry.PRISMA_WASM_PANIC_REGISTRY ??= {
    set_message(message: string) {
      lastPanic = message;
    },
  };

  const module = await WebAssembly.compile(readFileSync(wasmPath));
  const imports: WebAssembly.Imports = {};
  for (const entry of WebAssembly.Module.imports(module)) {
    imports[entry.module] = glue as unknown as WebAssembly.ModuleImports;
  }
  const instance = await WebAssembly.instantiate(module, imports);
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return glue;
}

/** Turns whatever the engine rejected with into an Error with a readable message. */
export function engineError(error: unknown, action: string): Error {
  let message: string;
  if (error instanceof Error) message = error.message;
  else if (typeof error === 'string') message = error;
  else if (error && typeof error === 'object' && 'message' in error) message = String((error as { message: unknown }).message);
  else message = JSON.stringify(error);
  if (lastPanic) {
    message += ` (schema engine panic: ${lastPanic})`;
    lastPanic = undefined;
  }
  const wrapped = new Error(`${action} failed: ${message}`);
  (wrapped as Error & { cause?: unknown }).cause = error;
  return wrapped;
}

export interface SchemaFile {
  path: string;
  content: string;
}

/**
 * Runs `work` with a schema engine connected through `adapterFactory` (its `connect()` is the main
 * database, `connectToShadowDb()` the shadow database). The engine is freed afterwards; the
 * caller owns the factory's connections and closes them.
 */
export async function withSchemaEngine<T>(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  schemaFiles: SchemaFile[],
  log: ((line: string) => void) | undefined,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine: Engine } = await loadSchemaEngine();
  // The engine's own timers are unref'd (see instantiate): hold the process open while it works.
  const keepAlive = setInterval(() => undefined, 60_000);
  let engine: SchemaEngine;
  try {
    engine = await Engine.new(
      { datamodels: schemaFiles.map((file) => [file.path, file.content] as [string, string]) },
      (line: string) => log?.(String(line)),
      bindMigrationAwareSqlAdapterFactory(adapterFactory),
    );
  } catch (error) {
    clearInterval(keepAlive);
    throw engineError(error, 'Starting the schema engine');
  }
  try {
    return await work(engine);
  } finally {
    clearInterval(keepAlive);
    engine.free();
  }
}
