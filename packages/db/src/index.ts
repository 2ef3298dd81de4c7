export { openDatabase } from './client';
export type { Database, DatabaseConfig } from './client';
export { migrateDatabase, migrationStatus } from './migrations/runner';
export type { MigrateOptions, MigrationStatus } from './migrations/runner';
export { createMigration, diffMigrations } from './migrations/diff';
export type { CreatedMigration, DiffOptions } from './migrations/diff';
export { Prisma, AccountStatus, KeyKind, Plan } from './generated/client';
export type { PrismaClient, Account, ApiKey, Image, AnalyticsEvent } from './generated/client';
export * from './repositories';
