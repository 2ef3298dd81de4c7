// Prisma CLI configuration. The service itself never needs the CLI: migrations run through
// packages/db/src/migrations (wasm schema engine over a driver adapter), see README "Database".
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/promptpix' },
});
