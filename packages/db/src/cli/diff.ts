/**
 * `npm run db:diff -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with the
 * SQL that takes the committed migrations to prisma/schema.prisma (PGlite shadow: nothing to install).
 */
import { relative } from 'node:path';
import { createMigration } from '../migrations/diff';

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || process.argv.length > 3) {
    console.error('usage: npm run db:diff -- <migration_name>');
    process.exitCode = 2;
    return;
  }
  const created = await createMigration(name, { log: process.env.DEBUG ? (line) => console.error(line) : undefined });
  if (!created) {
    console.log('No schema changes: the committed migrations already match prisma/schema.prisma. Nothing written.');
    return;
  }
  console.log(`Wrote ${relative(process.cwd(), created.directory)}/migration.sql`);
}

main().catch((error: unknown) => {
  console.error(`db:diff failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
