// Runs `prisma generate` at install time, offline as well as online.
// Generation needs no schema engine, but the CLI checks that one exists and would try to
// download it; pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file skips that.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= fileURLToPath(import.meta.url);

const result = spawnSync('npx', ['--no-install', 'prisma', 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
