/**
 * Test harness: the whole service in this process, on either adapter set, listening on a free
 * loopback port. `production` uses real PostgreSQL (a fresh database), Redis (a key prefix of
 * its own) and an S3-protocol server (s3rver); `embedded` uses PGlite, in-process queue and job
 * store, and local disk. Logs are captured so tests can read them.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { RequestListener } from 'node:http';
import type { Express } from 'express';
import winston from 'winston';
import { createApp } from '@promptpix/gateway';
import { buildGateway } from '@promptpix/gateway';
import { startStylePreviews, type StylePreviews } from '@promptpix/gateway';
import { startWorkers } from '@promptpix/worker';
import type { ImageModel } from '@promptpix/core';
import { createLogger, loadConfig, openInfrastructure, type Config, type Infrastructure } from '@promptpix/runtime';
import { createLifecycle } from '@promptpix/runtime/lifecycle';
import { listen } from '@promptpix/runtime/process';
import type { AnalyticsEvent, Prisma } from '@promptpix/db';
import { copyMigratedPGlite, createMigratedTestDatabase } from '@promptpix/db/testing';
import { startTestS3, TEST_REDIS_URL, testRedisPrefix, type TestS3 } from '@promptpix/testing';

export type Shape = 'embedded' | 'production';
export const SHAPES: Shape[] = ['embedded', 'production'];
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface TestService {
  shape: Shape;
  baseUrl: string;
  /** The gateway's Express app, as mounted on `baseUrl`. */
  app: Express;
  config: Config;
  /** Variables that point another service at the same state. */
  env: Record<string, string>;
  infra: Infrastructure;
  logs: string[];
  /** The S3-protocol server of a production-shape service (stop it to simulate a storage outage). */
  s3?: TestS3;
  /** Preset previews being rendered, when STYLE_PREVIEWS=on. */
  stylePreviews: StylePreviews | null;
  /** Model calls made by this service's worker. */
  modelCalls(): number;
  /** Calls the operator API; returns status and JSON body. */
  // biome-ignore lint/suspicious/noExplicitAny: the operator API's JSON answer, read field by field by the integration tests' assertions
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** An approved account with one secret and one publishable key. */
  createAccount(options?: { status?: string; plan?: string; domains?: string[]; monthlyGenerations?: number }): Promise<TestAccount>;
  /** Polls a job until it is completed or failed. */
  // biome-ignore lint/suspicious/noExplicitAny: the job's JSON view, read field by field by the integration tests' assertions
  waitForJob(jobId: string, key: string, timeoutMs?: number): Promise<any>;
  /**
   * Analytics rows matching `where`, once they stand for at least `atLeast` events (a row counts its
   * identical events: `count`). Events are buffered and a
   * worker records `generate` just after the job reads completed, so a test waits for them to land.
   */
  storedEvents(where: Prisma.AnalyticsEventWhereInput, atLeast?: number, timeoutMs?: number): Promise<AnalyticsEvent[]>;
  stop(): Promise<void>;
}

export interface TestAccount {
  handle: string;
  secretKey: string;
  publishableKey: string;
  publishableKeyId: string;
  secretKeyId: string;
}

let accountCounter = 0;

/** Two gateways (no workers) on one PostgreSQL database, Redis prefix and bucket: two processes' worth of state sharing. */
export async function startGatewayPair(): Promise<{ first: TestService; second: TestService; stop(): Promise<void> }> {
  const first = await startTestService('production', {}, { worker: false });
  const second = await startTestService('production', {}, { worker: false, shareWith: first });
  return {
    first,
    second,
    async stop() {
      await second.stop();
      await first.stop();
    },
  };
}

export interface TestServiceOptions {
  /** Start the in-process worker (default true). */
  worker?: boolean;
  /** Wraps the configured model, e.g. with a fake provider that fails or is slow. */
  model?: (configured: ImageModel) => ImageModel;
  /** A second gateway on the same PostgreSQL, Redis prefix and S3 bucket as this one. */
  shareWith?: TestService;
  /** Replaces parts of the infrastructure before the worker and gateway take them (to land a step mid-job). */
  instrument?: (infra: Infrastructure) => void;
}

export async function startTestService(shape: Shape, env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  let ownS3: TestS3 | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'promptpix-test-'));
  const cleanups: Array<() => Promise<void>> = options.shareWith ? [] : [async () => rmSync(dataDir, { recursive: true, force: true })];
  const baseEnv: Record<string, string> = {
    DATA_DIR: dataDir,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    // Off unless a test asks: rendering 28 previews would load every test service.
    STYLE_PREVIEWS: 'off',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    JOB_BACKOFF_MS: '20',
    WORKER_CONCURRENCY: '4',
  };
  if (options.shareWith) {
    Object.assign(baseEnv, options.shareWith.env);
  } else if (shape === 'production') {
    const db = await createMigratedTestDatabase();
    const s3 = await startTestS3();
    ownS3 = s3;
    cleanups.push(
      () => db.drop(),
      () => s3.stop(),
    );
    Object.assign(baseEnv, {
      DATABASE_URL: db.url,
      DATABASE_POOL_SIZE: '5',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: testRedisPrefix().replace(/:$/, ''),
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    });
  }

  // Listen first so the public base URL (in every imageUrl) is known before the app is built;
  // the HTTP limits are read from the same variables, since Node takes them when the server is made.
  let handler: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = await listen((req, res) => handler(req, res), 0, '127.0.0.1', loadConfig({ ...baseEnv, ...env }).http);
  const baseUrl = `http://127.0.0.1:${server.port}`;
  const config = loadConfig({ ...baseEnv, PUBLIC_BASE_URL: baseUrl, ...env });
  const sharedEnv = Object.fromEntries(Object.entries({ ...baseEnv, ...env }).filter(([k]) => /^(DATABASE_|REDIS_|S3_|DATA_DIR)/.test(k)));

  const logs: string[] = [];
  const capture = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({
    level: config.log.level,
    format: 'json',
    service: 'promptpix-test',
    transports: [new winston.transports.Stream({ stream: capture })],
  });
  // A new service's database is a copy of the migrated template (see @promptpix/db/testing), so there
  // is nothing left to migrate; an explicit DATA_DIR that already holds a database is migrated as usual.
  let migrate = !options.shareWith;
  if (migrate && config.database.kind === 'pglite' && !existsSync(config.database.dataDir)) {
    await copyMigratedPGlite(config.database.dataDir);
    migrate = false;
  } else if (migrate && shape === 'production' && !env.DATABASE_URL) {
    migrate = false;
  }
  const infra = await openInfrastructure(config, logger, { migrate });
  let calls = 0;
  const configured = options.model ? options.model(infra.model) : infra.model;
  infra.model = {
    name: configured.name,
    generate: (request, signal) => {
      calls++;
      return configured.generate(request, signal);
    },
    prepareReference: configured.prepareReference?.bind(configured),
    upscale: configured.upscale?.bind(configured),
    transparentBackground: configured.transparentBackground,
    edits: configured.edits,
  };
  options.instrument?.(infra);
  const consumer = options.worker === false ? null : startWorkers(infra, config, logger);
  const previews = config.stylePreviews ? startStylePreviews(infra, logger) : null;
  const lifecycle = createLifecycle();
  const app = createApp(buildGateway(infra, config, logger, config.adminToken, () => previews?.current() ?? {}, lifecycle));
  handler = app;

  async function admin(method: string, path: string, body?: unknown) {
    const response = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  return {
    shape,
    baseUrl,
    app,
    config,
    infra,
    logs,
    env: sharedEnv,
    s3: ownS3 ?? options.shareWith?.s3,
    modelCalls: () => calls,
    stylePreviews: previews,
    admin,
    async createAccount(o = {}) {
      const handle = `acct-${process.pid}-${++accountCounter}`;
      const created = await admin('POST', '/admin/api/v1/accounts', { handle, email: `${handle}@example.com`, status: o.status ?? 'approved', plan: o.plan });
      if (created.status !== 201) throw new Error(`account create failed: ${JSON.stringify(created.body)}`);
      if (o.monthlyGenerations !== undefined) await admin('PATCH', `/admin/api/v1/accounts/${handle}`, { monthlyGenerations: o.monthlyGenerations });
      const secret = await admin('POST', `/admin/api/v1/accounts/${handle}/keys`, { kind: 'secret', name: 'server', domains: [] });
      const publishable = await admin('POST', `/admin/api/v1/accounts/${handle}/keys`, { kind: 'publishable', name: 'site', domains: o.domains ?? [] });
      return { handle, secretKey: secret.body.key, secretKeyId: secret.body.id, publishableKey: publishable.body.key, publishableKeyId: publishable.body.id };
    },
    async waitForJob(jobId, key, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const response = await fetch(`${baseUrl}/api/v1/job/${jobId}`, { headers: { authorization: `Bearer ${key}` } });
        const job = await response.json();
        if (job.status === 'completed' || job.status === 'failed') return job;
        if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async storedEvents(where, atLeast = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await infra.events.flush();
        const events = await infra.db.prisma.analyticsEvent.findMany({ where, orderBy: { createdAt: 'asc' } });
        // A row may count several identical events (the recorder coalesces them).
        if (events.reduce((sum, e) => sum + e.count, 0) >= atLeast || Date.now() > deadline) return events;
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop() {
      lifecycle.stopping();
      await server.stop(1000);
      await consumer?.close();
      await infra.close();
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    },
  };
}
