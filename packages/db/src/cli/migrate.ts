/**
 * `npm run db:migrate`: applies prisma/migrations to DATABASE_URL when set, else to the PGlite
 * database at `${DATA_DIR ?? './data'}/db`. Prints one JSON line `{"applied":[...]}`.
 */
import { join } from 'node:path';
import type { DatabaseConfig } from '../client';
import { migrateDatabase } from '../migrations/runner';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  const config: DatabaseConfig = url ? { kind: 'postgres', url } : { kind: 'pglite', dataDir: join(process.env.DATA_DIR ?? './data', 'db') };
  const result = await migrateDatabase(config, { log: process.env.DEBUG ? (line) => console.error(line) : undefined });
  console.log(JSON.stringify({ applied: result.applied }));
}

main().catch((error: unknown) => {
  console.error(`db:migrate failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
