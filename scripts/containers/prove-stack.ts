/**
 * Starts the images scripts/containers/build-images.sh built, on this machine's network, and proves
 * what operators rely on: the migration image applies the schema (and again, with nothing to do);
 * a gateway and two workers come up healthy, as uid 1000 on a read-only root filesystem; a
 * generation goes end to end through the gateway's port; a worker killed (SIGKILL) in the middle
 * of a job leaves it to the other worker, and each job finishes once and is charged once;
 * `docker stop` ends each service with exit code 0 inside its grace period. Then it removes
 * everything it started, and checks that nothing is left.
 *
 * PostgreSQL and Redis are this machine's (127.0.0.1:5432 and :6379; its own database and key
 * prefix), the S3 server is s3rver on a free loopback port; the containers use the host network,
 * so no traffic leaves the machine. Root (the Docker socket):
 *
 *   npx tsx scripts/containers/prove-stack.ts        # or scripts/containers/run.sh for both steps
 *
 * Prints a Markdown report (docs/operating/building.md keeps the last one).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import pg from 'pg';
import { createTestDatabase, freePort, startTestS3, TEST_REDIS_URL, until, type TestDatabase, type TestS3 } from '@promptpix/testing';

const run = promisify(execFile);
const DOCKER = process.env.DOCKER ?? '/usr/bin/docker';
const TAG = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const RUN_ID = `promptpix-stack-${process.pid}`;
/** Long enough to kill a worker in the middle of a job. */
const MODEL_LATENCY_MS = 6000;
const STOP_GRACE_S = 30;

interface Step {
  step: string;
  result: string;
  ms: number;
}
const steps: Step[] = [];

async function step<T>(name: string, body: () => Promise<{ value?: T; result: string }>): Promise<T> {
  const started = Date.now();
  const { value, result } = await body();
  steps.push({ step: name, result, ms: Date.now() - started });
  console.error(`[prove-stack] ${name}: ${result}`);
  return value as T;
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run(DOCKER, args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

interface Stack {
  database: TestDatabase;
  s3: TestS3;
  gatewayPort: number;
  adminToken: string;
  env: Record<string, string>;
}

function envArgs(env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
}

/** How every service container runs: host network, read-only root, a small /tmp, no capabilities. */
function hardened(name: string): string[] {
  return [
    '--name',
    name,
    '--label',
    `promptpix-stack=${RUN_ID}`,
    '--network',
    'host',
    '--read-only',
    '--tmpfs',
    '/tmp:rw,size=64m',
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '--stop-timeout',
    String(STOP_GRACE_S),
  ];
}

const container = (role: string) => `${RUN_ID}-${role}`;

async function startService(stack: Stack, role: 'gateway' | 'worker-1' | 'worker-2', extra: Record<string, string>) {
  const image = role === 'gateway' ? 'gateway' : 'worker';
  await docker('run', '-d', ...hardened(container(role)), ...envArgs({ ...stack.env, ...extra }), `promptpix/${image}:${TAG}`);
}

async function health(name: string): Promise<string> {
  return docker('inspect', '-f', '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}', name);
}

async function api(stack: Stack, method: string, path: string, body?: unknown, key?: string) {
  const response = await fetch(`http://127.0.0.1:${stack.gatewayPort}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key ?? stack.adminToken}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function accountWithKey(stack: Stack, handle: string): Promise<string> {
  const account = await api(stack, 'POST', '/admin/api/v1/accounts', { handle, email: `${handle}@example.com`, plan: 'pro', status: 'approved' });
  check(account.status === 201, `account ${handle}: ${account.status} ${JSON.stringify(account.json)}`);
  const key = await api(stack, 'POST', `/admin/api/v1/accounts/${handle}/keys`, { kind: 'secret', name: 'stack', domains: [] });
  check(key.status === 201, `key for ${handle}: ${key.status} ${JSON.stringify(key.json)}`);
  return key.json.key as string;
}

async function generate(stack: Stack, key: string, prompt: string) {
  const answer = await api(stack, 'POST', '/api/v1/generate', { prompt }, key);
  check(answer.status === 202 || answer.status === 200, `generate: ${answer.status} ${JSON.stringify(answer.json)}`);
  return { jobId: answer.json.jobId as string, status: answer.status, quotaUsed: Number(answer.headers.get('x-quota-used')) };
}

async function job(stack: Stack, key: string, jobId: string) {
  const answer = await api(stack, 'GET', `/api/v1/job/${jobId}`, undefined, key);
  check(answer.status === 200, `job ${jobId}: ${answer.status}`);
  return answer.json;
}

async function completed(stack: Stack, key: string, jobId: string, timeoutMs: number) {
  const current = await until(
    () => job(stack, key, jobId),
    (j) => j.status === 'completed' || j.status === 'failed',
    `job ${jobId} to finish`,
    timeoutMs,
  );
  check(current.status === 'completed', `job ${jobId} failed: ${JSON.stringify(current.error)}`);
  return current;
}

async function imagesOfJob(stack: Stack, jobId: string): Promise<number> {
  const client = new pg.Client({ connectionString: stack.database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM "Image" WHERE "jobId" = $1', [jobId]);
    return Number(rows[0].count);
  } finally {
    await client.end();
  }
}

/**
 * The account's generations this month, from the X-Quota-Used of a request for a prompt it already
 * generated: a cache hit, which is free (were it charged, the count would show it).
 */
async function quotaUsed(stack: Stack, key: string, generatedPrompt: string): Promise<number> {
  return (await generate(stack, key, generatedPrompt)).quotaUsed;
}

async function stopWithin(name: string): Promise<string> {
  const started = Date.now();
  await docker('stop', '-t', String(STOP_GRACE_S), name);
  const ms = Date.now() - started;
  const exit = await docker('inspect', '-f', '{{.State.ExitCode}} {{.State.OOMKilled}}', name);
  check(exit === '0 false', `${name} exited with "${exit}" after docker stop`);
  check(ms < STOP_GRACE_S * 1000, `${name} took ${ms} ms to stop (grace ${STOP_GRACE_S} s): it was killed`);
  return `exit 0 after ${(ms / 1000).toFixed(1)} s (grace ${STOP_GRACE_S} s)`;
}

async function prove(stack: Stack) {
  const migrateEnv = envArgs({ NODE_ENV: 'production', DATABASE_URL: stack.env.DATABASE_URL });
  const migrate = ['run', '--rm', ...hardened(container('migrate')), ...migrateEnv, `promptpix/migrate:${TAG}`];
  const applied = async () => (JSON.parse((await docker(...migrate)).split('\n').pop()!) as { applied: string[] }).applied.length;
  await step('migration image', async () => ({ result: `exit 0, ${await applied()} migrations applied` }));
  await step('migration image, again', async () => {
    const count = await applied();
    check(count === 0, `${count} migrations applied a second time`);
    return { result: 'exit 0, nothing to apply' };
  });

  const metricsPorts = [await freePort(), await freePort()];
  await step('start gateway and two workers', async () => {
    await startService(stack, 'gateway', { PORT: String(stack.gatewayPort) });
    await startService(stack, 'worker-1', { METRICS_PORT: String(metricsPorts[0]) });
    await startService(stack, 'worker-2', { METRICS_PORT: String(metricsPorts[1]) });
    const ready = () =>
      fetch(`http://127.0.0.1:${stack.gatewayPort}/api/ready`).then(
        (r) => r.ok,
        () => false,
      );
    await until(ready, Boolean, 'the gateway to be ready', 60_000);
    return { result: 'gateway answers /api/ready 200' };
  });
  await step('healthchecks', async () => {
    const names = ['gateway', 'worker-1', 'worker-2'].map(container);
    const states = await until(
      () => Promise.all(names.map(health)),
      (s) => s.every((h) => h === 'healthy') || s.includes('unhealthy'),
      'three healthy containers',
      90_000,
    );
    check(!states.includes('unhealthy'), `unhealthy: ${states.join(', ')}`);
    return { result: 'gateway, worker-1 and worker-2 report healthy (their images\u2019 HEALTHCHECK)' };
  });
  await step('what the images hold', async () => {
    const census = `
      const fs = require('fs'), path = require('path');
      let typescript = 0;
      (function walk(dir) {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          if (e.isDirectory()) walk(path.join(dir, e.name));
          else if (/\\.tsx?$/.test(e.name)) typescript += 1;
        }
      })('/app');
      const has = (p) => fs.existsSync(p);
      console.log(JSON.stringify({ typescript, bundler: has('/app/node_modules/esbuild'), prismaCli: has('/app/node_modules/prisma'), shell: has('/bin/sh') }));`;
    for (const image of ['gateway', 'worker', 'migrate']) {
      const held = await docker('run', '--rm', '--network', 'none', `promptpix/${image}:${TAG}`, 'node', '-e', census);
      check(held === JSON.stringify({ typescript: 0, bundler: false, prismaCli: false, shell: false }), `promptpix/${image} holds ${held}`);
    }
    return { result: 'gateway, worker, migrate: no TypeScript source, no bundler, no Prisma CLI, no shell' };
  });
  await step('built files the gateway serves', async () => {
    const get = async (path: string) => {
      const response = await fetch(new URL(path, `http://127.0.0.1:${stack.gatewayPort}`));
      check(response.ok, `GET ${path}: ${response.status}`);
      return { type: response.headers.get('content-type') ?? '', text: await response.text() };
    };
    const dashboard = await get('/dashboard');
    const script = /src="(\/dashboard\/assets\/app\.[^"]+\.js)"/.exec(dashboard.text)?.[1];
    check(script, 'the dashboard page names no app.<hash>.js');
    const served = [script, '/service-client.js', '/docs', '/docs/assets/swagger-ui-bundle.js', '/api/openapi.json'];
    for (const path of served) await get(path);
    return { result: `200 for /dashboard and ${served.join(', ')}` };
  });
  await step('non-root, read-only root filesystem', async () => {
    const rows: string[] = [];
    for (const role of ['gateway', 'worker-1', 'worker-2']) {
      const name = container(role);
      const [user, readOnly] = (await docker('inspect', '-f', '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}', name)).split(' ');
      const uids = new Set(
        (await docker('top', name, '-eo', 'uid,pid'))
          .split('\n')
          .slice(1)
          .map((l) => l.trim().split(/\s+/)[0]),
      );
      check(user === '1000:1000' && readOnly === 'true', `${name}: user ${user}, read-only ${readOnly}`);
      check(uids.size === 1 && uids.has('1000'), `${name}: processes run as ${[...uids].join(', ')}`);
      const write = await run(DOCKER, ['exec', name, 'node', '-e', "require('fs').writeFileSync('/app/probe', 'x')"]).then(
        () => 'written',
        (error: { stderr?: string }) => (/EROFS/.test(error.stderr ?? '') ? 'EROFS' : (error.stderr ?? 'failed')),
      );
      check(write === 'EROFS', `${name}: writing /app gave ${write}`);
      rows.push(role);
    }
    return { result: `${rows.join(', ')}: user 1000:1000, every process uid 1000, a write to /app fails with EROFS` };
  });

  const first = 'a lighthouse on a cliff at dusk';
  const alice = await accountWithKey(stack, 'stack-alice');
  const bob = await accountWithKey(stack, 'stack-bob');
  await step('a generation end to end', async () => {
    const started = Date.now();
    const submitted = await generate(stack, alice, first);
    check(submitted.status === 202, `expected 202, got ${submitted.status}`);
    const done = await completed(stack, alice, submitted.jobId, 60_000);
    const image = await fetch(done.imageUrl as string);
    const bytes = Buffer.from(await image.arrayBuffer());
    check(image.ok && bytes.length > 1000, `image ${done.imageUrl}: ${image.status}, ${bytes.length} bytes`);
    const type = image.headers.get('content-type');
    return {
      result: `202 → completed in ${((Date.now() - started) / 1000).toFixed(1)} s (model latency ${MODEL_LATENCY_MS / 1000} s); the image URL answers ${type}, ${Math.round(bytes.length / 1024)} kB`,
    };
  });

  await step('worker killed mid-job', async () => {
    // One job per worker (WORKER_CONCURRENCY=1), one per account: each worker holds a job.
    const jobs = [
      { key: alice, prompt: 'a red fox in the snow' },
      { key: bob, prompt: 'a sailing boat on a calm sea' },
    ];
    const submitted: Array<{ key: string; prompt: string; jobId: string }> = [];
    for (const j of jobs) submitted.push({ ...j, jobId: (await generate(stack, j.key, j.prompt)).jobId });
    await until(
      () => Promise.all(submitted.map((s) => job(stack, s.key, s.jobId))),
      (states) => states.every((s) => s.status === 'processing'),
      'both jobs processing',
      30_000,
    );
    const killedAt = Date.now();
    await docker('kill', '--signal', 'KILL', container('worker-1'));
    const finished = await Promise.all(submitted.map((s) => completed(stack, s.key, s.jobId, 180_000).then(() => Date.now() - killedAt)));
    const images = await Promise.all(submitted.map((s) => imagesOfJob(stack, s.jobId)));
    check(
      images.every((n) => n === 1),
      `images per job: ${images.join(', ')}`,
    );
    // Alice: the first generation and this one; Bob: this one. Cached answers are free.
    const used = [await quotaUsed(stack, alice, jobs[0].prompt), await quotaUsed(stack, bob, jobs[1].prompt)];
    check(used[0] === 2 && used[1] === 1, `quota used after recovery: alice ${used[0]} (expected 2), bob ${used[1]} (expected 1)`);
    return {
      result: `worker-1 killed while both workers held a job; both completed ${finished.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(' and ')} after the kill, one image each, quota used 2 and 1 (charged once)`,
    };
  });

  await step('docker stop: a worker with a job in flight', async () => {
    const submitted = await generate(stack, bob, 'a hot air balloon over hills');
    await until(
      () => job(stack, bob, submitted.jobId),
      (j) => j.status === 'processing',
      'the job to be processing',
      30_000,
    );
    const stopped = await stopWithin(container('worker-2'));
    const done = await job(stack, bob, submitted.jobId);
    check(done.status === 'completed', `the job in flight ended ${done.status}`);
    return { result: `${stopped}; the job it held completed before it exited` };
  });
  await step('docker stop: gateway', async () => ({ result: await stopWithin(container('gateway')) }));
}

async function teardown(stack: Partial<Stack>) {
  const leftovers = await docker('ps', '-aq', '--filter', `label=promptpix-stack=${RUN_ID}`);
  if (leftovers) await docker('rm', '-f', ...leftovers.split('\n'));
  await stack.s3?.stop();
  await stack.database?.drop();
  const redis = new Redis(TEST_REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${RUN_ID}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
  const after = await docker('ps', '-aq', '--filter', `label=promptpix-stack=${RUN_ID}`);
  check(after === '', `containers left: ${after}`);
}

async function main() {
  const started = Date.now();
  const stack: Partial<Stack> = {};
  let failure: unknown;
  try {
    stack.database = await createTestDatabase();
    stack.s3 = await startTestS3('promptpix');
    stack.gatewayPort = await freePort();
    stack.adminToken = randomBytes(24).toString('hex');
    stack.env = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      DATABASE_URL: stack.database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: RUN_ID,
      S3_BUCKET: stack.s3.bucket,
      S3_ENDPOINT: stack.s3.endpoint,
      S3_ACCESS_KEY_ID: stack.s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: stack.s3.secretAccessKey,
      PUBLIC_BASE_URL: `http://127.0.0.1:${stack.gatewayPort}`,
      ADMIN_TOKEN: stack.adminToken,
      MODEL_PROVIDER: 'procedural',
      MODEL_LATENCY_MS: String(MODEL_LATENCY_MS),
      WORKER_CONCURRENCY: '1',
    };
    await prove(stack as Stack);
  } catch (error) {
    failure = error;
    for (const role of ['gateway', 'worker-1', 'worker-2']) {
      const logs = await run(DOCKER, ['logs', '--tail', '30', container(role)]).catch(() => undefined);
      if (logs) console.error(`--- ${role} (last lines)\n${logs.stdout}${logs.stderr}`);
    }
  } finally {
    await step('teardown', async () => {
      await teardown(stack);
      return { result: 'containers removed, s3rver stopped, database dropped, Redis keys deleted; no container of this run left' };
    });
  }
  const images = await docker('image', 'ls', '--format', '{{.Repository}}:{{.Tag}} {{.Size}}');
  console.log(`### Stack run, ${new Date().toISOString().slice(0, 16)}Z (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  console.log('| Step | Result | Time |\n|---|---|---|');
  for (const s of steps) console.log(`| ${s.step} | ${s.result} | ${(s.ms / 1000).toFixed(1)} s |`);
  console.log(
    `\nImages:\n\n${images
      .split('\n')
      .filter((line) => /^promptpix(-base)?\//.test(line))
      .sort()
      .map((line) => `- \`${line.split(' ')[0]}\`: ${line.split(' ')[1]}`)
      .join('\n')}`,
  );
  if (failure) {
    console.error(failure);
    process.exitCode = 1;
  }
}

void main();
