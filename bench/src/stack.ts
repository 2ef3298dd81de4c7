/**
 * The production shape under test: a database of our own (created, migrated, dropped), a Redis
 * key prefix of our own (deleted at the end), local storage in a temp dir, and the gateway and
 * worker as separate child processes. Everything registered here is undone by `cleanup()`, which
 * main.ts runs in `finally` and on SIGINT/SIGTERM.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import pg from 'pg';
import { logTail, ROOT, startChild, waitFor, type Child } from './proc';

const run = promisify(execFile);

export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres' };

/** glibc's malloc arenas, as the start scripts and the images cap them (2); BENCH: set MALLOC_ARENA_MAX to compare. */
export const MALLOC_ENV = { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX || '2' };
/** What `npm start` adds for the embedded server: freed blocks of 128 kB or more go back to the system, and V8's old generation is capped. */
export const EMBEDDED_START_ENV = {
  ...MALLOC_ENV,
  MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ || '131072',
  MALLOC_TRIM_THRESHOLD_: process.env.MALLOC_TRIM_THRESHOLD_ || '131072',
  // `npm start`'s heap limit; BENCH: set BENCH_EMBEDDED_NODE_OPTIONS to compare ('' runs without it).
  NODE_OPTIONS: process.env.BENCH_EMBEDDED_NODE_OPTIONS ?? '--max-old-space-size=128',
  // Where the embedded database runs ('on': a thread of its own); unset leaves the default.
  ...(process.env.EMBEDDED_DATABASE_THREAD && { EMBEDDED_DATABASE_THREAD: process.env.EMBEDDED_DATABASE_THREAD }),
};

/** The gateway's heap limit, as `npm run start:gateway` and the gateway image set it. */
export const GATEWAY_ENV = { NODE_OPTIONS: '--max-old-space-size=128' };

/** What the start scripts and the images run: `node --enable-source-maps dist/<app>.js`. */
export const BUNDLE_NODE_ARGS = ['--enable-source-maps'];
export const bundle = (app: 'gateway' | 'worker' | 'server') => ({ script: `dist/${app}.js`, runner: 'node' as const });

/** Builds dist/ when a source changed since the last build (what `npm start` does first). */
export async function ensureBuilt(log: (line: string) => void) {
  const built = await run(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT });
  if (built.stderr.trim()) log(built.stderr.trim());
}
export const REDIS_URL = 'redis://127.0.0.1:6379';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface WorkerSettings {
  concurrency: number;
  modelLatencyMs: number;
  /** Where the worker serves /metrics (default: any free port, not reported). */
  metricsPort?: number;
}

export interface Stack {
  id: string;
  dbName: string;
  databaseUrl: string;
  redisPrefix: string;
  dataDir: string;
  logDir: string;
  adminToken: string;
  port: number;
  baseUrl: string;
  /** The orchestrator's own connections (stats, SQL setup, key counting). */
  sql: pg.Pool;
  redis: Redis;
  gateway: Child | null;
  worker: Child | null;
  /** The built bundle on plain node, as `npm run start:gateway` and the image run it; `source`: the TypeScript through tsx instead. */
  /** `env` replaces variables of the gateway's environment (NODE_OPTIONS: '' runs it without its heap limit). */
  startGateway(options?: { nodeArgs?: string[]; source?: boolean; env?: Record<string, string> }): Promise<Child>;
  stopGateway(): Promise<void>;
  /**
   * A second gateway on its own port whose PostgreSQL and Redis connections go through the given
   * ports (the counting proxies). Stopped by cleanup().
   */
  startCountingGateway(pgPort: number, redisPort: number): Promise<{ child: Child; baseUrl: string }>;
  startWorker(settings: WorkerSettings): Promise<Child>;
  stopWorker(): Promise<void>;
  /** One more worker process beside `worker` (stopped by stopExtraWorkers() or cleanup()). */
  startExtraWorker(settings: WorkerSettings): Promise<Child>;
  stopExtraWorkers(): Promise<void>;
  /** Deletes every Redis key under our prefix; returns how many. */
  deleteRedisKeys(pattern?: string): Promise<number>;
  cleanup(): Promise<string[]>;
}

async function adminQuery(sqlText: string) {
  const client = new pg.Client({ ...PG, database: 'postgres' });
  await client.connect();
  try {
    await client.query(sqlText);
  } finally {
    await client.end();
  }
}

export async function createStack(log: (line: string) => void): Promise<Stack> {
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const id = `${stamp}_${randomBytes(3).toString('hex')}`;
  const dbName = `promptpix_bench_${id}`;
  const databaseUrl = `postgresql://${PG.user}@${PG.host}:${PG.port}/${dbName}`;
  const redisPrefix = `promptpix-bench-${id}`;
  const tmp = mkdtempSync(join(tmpdir(), 'promptpix-bench-'));
  const dataDir = join(tmp, 'data');
  const logDir = tmp;
  const adminToken = randomBytes(24).toString('hex');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const undo: Array<[string, () => Promise<unknown>]> = [];

  // BENCH_KEEP_LOGS=1 keeps the servers' logs (and data) for a look afterwards.
  if (process.env.BENCH_KEEP_LOGS) log(`logs kept in ${logDir}`);
  else undo.push(['temp dir', async () => rmSync(tmp, { recursive: true, force: true })]);
  await adminQuery(`CREATE DATABASE "${dbName}"`);
  undo.push(['database', () => adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)]);
  log(`database ${dbName} created; migrating`);
  try {
    const migrated = await run('npm', ['run', '--silent', 'db:migrate'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl } });
    log(`migrated: ${migrated.stdout.trim()}`);
  } catch (error) {
    for (const [, fn] of undo.reverse()) await fn().catch(() => undefined);
    throw error;
  }

  const sql = new pg.Pool({ ...PG, database: dbName, max: 4 });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });

  const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: redisPrefix,
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    PORT: String(port),
    PUBLIC_BASE_URL: baseUrl,
    // The bench queues thousands of jobs per key on purpose; the per-key cap would turn them into 429s.
    ACTIVE_JOBS_PER_KEY_ENTERPRISE: '1000000',
    // Its accounts spread load over up to 96 keys each, past the default cap of live keys.
    MAX_KEYS_PER_ACCOUNT: '1000',
    ...MALLOC_ENV,
    ...extra,
  });

  const extra: Child[] = [];
  const waitHealthy = async (child: Child, url: string) => {
    try {
      await waitFor(
        `${child.name} /api/health`,
        async () => {
          if (!child.isRunning()) throw new Error(`${child.name} exited`);
          const res = await fetch(`${url}/api/health`);
          return res.ok ? true : undefined;
        },
        60_000,
        150,
      );
    } catch (error) {
      throw new Error(`${String(error)}\n${logTail(child)}`);
    }
  };

  const deleteRedisKeys = async (pattern = `${redisPrefix}:*`): Promise<number> => {
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  };

  const extraWorkers: Child[] = [];
  const startWorkerProcess = async (settings: WorkerSettings, name: string): Promise<Child> => {
    const child = startChild({
      name,
      ...bundle('worker'),
      nodeArgs: BUNDLE_NODE_ARGS,
      // METRICS_PORT 0: any free port, so a bench beside another (or a running worker) can start.
      env: env({
        WORKER_CONCURRENCY: String(settings.concurrency),
        MODEL_LATENCY_MS: String(settings.modelLatencyMs),
        METRICS_PORT: String(settings.metricsPort ?? 0),
      }),
      logDir,
    });
    const connectionsBefore = await workerConnections();
    // The worker has no HTTP surface: it is up once BullMQ has registered one more worker
    // connection on the queue (BullMQ names its worker connections after the queue).
    await waitFor(
      `${name} to connect to the queue`,
      async () => {
        if (!child.isRunning()) throw new Error(`worker exited:\n${logTail(child)}`);
        return (await workerConnections()) > connectionsBefore ? true : undefined;
      },
      60_000,
      150,
    ).catch(async () => {
      // Fall back to a fixed grace period: the check is a convenience, not a contract.
      if (!child.isRunning()) throw new Error(`worker exited:\n${logTail(child)}`);
    });
    return child;
  };
  const workerConnections = async () => {
    const clients = (await redis.client('LIST')) as string;
    return clients.split('\n').filter((line) => line.includes(`name=${redisPrefix}:generation:worker`) || /name=bull:/.test(line)).length;
  };

  const stack: Stack = {
    id,
    dbName,
    databaseUrl,
    redisPrefix,
    dataDir,
    logDir,
    adminToken,
    port,
    baseUrl,
    sql,
    redis,
    gateway: null,
    worker: null,

    async startGateway(options = {}) {
      if (stack.gateway?.isRunning()) throw new Error('gateway already running');
      const gatewayEnv = env({ ...GATEWAY_ENV, ...options.env });
      const child = options.source
        ? startChild({ name: 'gateway-tsx', script: 'apps/gateway/src/main.ts', env: gatewayEnv, logDir, nodeArgs: options.nodeArgs })
        : startChild({
            name: 'gateway',
            ...bundle('gateway'),
            env: gatewayEnv,
            logDir,
            nodeArgs: [...BUNDLE_NODE_ARGS, ...gatewayNodeArgs(), ...(options.nodeArgs ?? [])],
          });
      stack.gateway = child;
      await waitHealthy(child, baseUrl);
      return child;
    },

    async startCountingGateway(pgPort, redisPort) {
      const countingPort = await freePort();
      const countingUrl = `http://127.0.0.1:${countingPort}`;
      const child = startChild({
        name: 'gateway-counting',
        ...bundle('gateway'),
        nodeArgs: BUNDLE_NODE_ARGS,
        env: env({
          ...GATEWAY_ENV,
          PORT: String(countingPort),
          DATABASE_URL: `postgresql://${PG.user}@127.0.0.1:${pgPort}/${dbName}`,
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        }),
        logDir,
      });
      extra.push(child);
      await waitHealthy(child, countingUrl);
      return { child, baseUrl: countingUrl };
    },

    async stopGateway() {
      await stack.gateway?.stop();
      stack.gateway = null;
    },

    async startWorker(settings) {
      if (stack.worker?.isRunning()) throw new Error('worker already running');
      stack.worker = await startWorkerProcess(settings, `worker-c${settings.concurrency}-l${settings.modelLatencyMs}`);
      return stack.worker;
    },

    async startExtraWorker(settings) {
      const child = await startWorkerProcess(settings, `worker-extra${extraWorkers.length + 1}-c${settings.concurrency}-l${settings.modelLatencyMs}`);
      extraWorkers.push(child);
      return child;
    },

    async stopExtraWorkers() {
      for (const child of extraWorkers.splice(0)) await child.stop(20_000);
    },

    async stopWorker() {
      await stack.worker?.stop(20_000);
      stack.worker = null;
    },

    deleteRedisKeys,

    async cleanup() {
      const done: string[] = [];
      await stack.worker?.stop(5_000).catch(() => undefined);
      for (const child of extraWorkers) await child.stop(5_000).catch(() => undefined);
      await stack.gateway?.stop(5_000).catch(() => undefined);
      for (const child of extra) await child.stop(5_000).catch(() => undefined);
      done.push('processes stopped');
      try {
        const n = await deleteRedisKeys();
        done.push(`${n} Redis keys deleted (${redisPrefix}:*)`);
      } catch (error) {
        done.push(`Redis cleanup failed: ${String(error)}`);
      }
      redis.disconnect();
      await sql.end().catch(() => undefined);
      for (const [what, fn] of undo.reverse()) {
        try {
          await fn();
          done.push(`${what} removed`);
        } catch (error) {
          done.push(`${what} cleanup failed: ${String(error)}`);
        }
      }
      return done;
    },
  };
  return stack;
}

/** BENCH_GATEWAY_NODE_ARGS: extra node flags for the production gateway (e.g. `--trace-gc`; its output lands in the gateway's log). */
const gatewayNodeArgs = (): string[] => (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * What `npm start` runs (the server bundle on plain node), with nothing configured but a port, a
 * data dir, the operator token and `env`; resolves once it answers /api/health.
 */
export async function startEmbeddedServer(o: {
  name: string;
  dataDir: string;
  adminToken: string;
  logDir: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
}): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  mkdirSync(o.dataDir, { recursive: true });
  const child = startChild({
    name: o.name,
    ...bundle('server'),
    nodeArgs: [...BUNDLE_NODE_ARGS, ...(o.nodeArgs ?? [])],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...EMBEDDED_START_ENV,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATA_DIR: o.dataDir,
      ADMIN_TOKEN: o.adminToken,
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      ...o.env,
    },
    logDir: o.logDir,
  });
  try {
    await waitFor(
      `${o.name} /api/health`,
      async () => {
        if (!child.isRunning()) throw new Error(`${o.name} exited:\n${logTail(child)}`);
        return (await fetch(`${base}/api/health`).catch(() => null))?.ok ? true : undefined;
      },
      120_000,
      200,
    );
  } catch (error) {
    await child.stop(5_000).catch(() => undefined);
    throw error;
  }
  return { child, base };
}
