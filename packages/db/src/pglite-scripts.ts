/**
 * Migration scripts on PGlite, awaited (used by the migration adapters and the database thread's
 * connection alike; its own module so that neither imports the other).
 */
import { DriverAdapterError, type SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import type { PGlite } from './pglite';

function toDriverError(error: unknown): unknown {
  const e = error as { code?: unknown; message?: unknown; severity?: unknown; detail?: unknown; column?: unknown; hint?: unknown };
  if (error && typeof e.code === 'string' && typeof e.message === 'string') {
    return new DriverAdapterError({
      kind: 'postgres',
      code: e.code,
      severity: typeof e.severity === 'string' ? e.severity : 'ERROR',
      message: e.message,
      detail: typeof e.detail === 'string' ? e.detail : undefined,
      column: typeof e.column === 'string' ? e.column : undefined,
      hint: typeof e.hint === 'string' ? e.hint : undefined,
    });
  }
  return error;
}

/**
 * pglite-prisma-adapter 0.7.2 runs `executeScript` (how the engine runs a migration.sql) without
 * awaiting it: a failing migration would be recorded as applied and the error would surface as an
 * unhandled rejection. This awaits the script and reports its error to the engine.
 */
export function awaitScripts(adapter: SqlDriverAdapter, pglite: PGlite): SqlDriverAdapter {
  adapter.executeScript = async (script: string) => {
    try {
      await pglite.exec(script);
    } catch (error) {
      throw toDriverError(error);
    }
  };
  return adapter;
}
