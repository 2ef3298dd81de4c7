/**
 * Graceful shutdown with real processes, as a rolling update does it: a worker with jobs in
 * flight gets SIGTERM, takes no new job, finishes the ones it holds and exits 0; a second worker
 * completes the rest. No job is lost or run twice, and no quota unit is leaked. The workers run as
 * the Docker image runs them (`node --import tsx apps/worker/src/main.ts`) against PostgreSQL,
 * Redis and an S3-protocol server shared with an in-process gateway.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import request from 'supertest';
import { startTestService, type TestService } from '@promptpix/server/testing';

const ROOT = resolve(__dirname, '../../..');
const JOBS = 6;
const MODEL_LATENCY_MS = 2500;

type Worker = ChildProcess & { output: string[]; lines(): Array<Record<string, any>> };

function startWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/worker/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_ENV: 'production', LOG_FORMAT: 'json', METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as Worker;
  child.output = [];
  child.stdout!.on('data', (d) => child.output.push(String(d)));
  child.stderr!.on('data', (d) => child.output.push(String(d)));
  child.lines = () =>
    child.output
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  return child;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, worker?: Worker): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${worker ? `:\n${worker.output.join('')}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((done) => (child.exitCode !== null ? done(child.exitCode) : child.once('exit', (code) => done(code))));

const completedBy = (worker: Worker) =>
  new Set(
    worker
      .lines()
      .filter((l) => l.message === 'generation completed')
      .map((l) => l.jobId as string),
  );

describe('worker graceful shutdown (SIGTERM with jobs in flight)', () => {
  let service: TestService;
  const workers: Worker[] = [];
  beforeAll(async () => {
    service = await startTestService('production', {}, { worker: false });
  });
  afterAll(async () => {
    for (const worker of workers) {
      if (worker.exitCode === null) {
        worker.kill('SIGKILL');
        await exited(worker);
      }
    }
    await service?.stop();
  });

  it('finishes the jobs in flight, takes no new one, exits 0; another worker completes the rest', async () => {
    const account = await service.createAccount({ monthlyGenerations: 50 });
    const jobIds: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const res = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .send({ prompt: `shutdown test ${i}: a lantern in the fog`, format: 'png', width: 256, height: 256 });
      expect(res.status).toBe(202);
      jobIds.push(res.body.jobId);
    }
    const env = { ...service.env, WORKER_CONCURRENCY: '2', MODEL_LATENCY_MS: String(MODEL_LATENCY_MS), JOB_BACKOFF_MS: '20' };

    // Worker A takes two jobs; SIGTERM while both are in the model.
    const a = startWorker(env);
    workers.push(a);
    const statuses = async () => Promise.all(jobIds.map(async (id) => [id, (await service.infra.jobStore.get(id))!.status] as const));
    const inFlight = await until(
      'worker A to take two jobs',
      async () => {
        const processing = (await statuses()).filter(([, status]) => status === 'processing').map(([id]) => id);
        return processing.length === 2 ? processing : undefined;
      },
      45_000,
      a,
    );
    expect(a.exitCode).toBeNull();
    const aPort = await until(
      'worker A metrics port',
      () => a.lines().find((l) => l.message === 'worker metrics listening')?.port as number | undefined,
      10_000,
      a,
    );
    expect(await (await fetch(`http://127.0.0.1:${aPort}/api/ready`)).json()).toEqual({ status: 'ready' });
    const signalled = Date.now();
    a.kill('SIGTERM');
    // While A drains its jobs, its readiness says so (its Pod leaves the Service; the port stays up).
    const draining = await until(
      'worker A to answer not ready while draining',
      async () => {
        const res = await fetch(`http://127.0.0.1:${aPort}/api/ready`).catch(() => null);
        return res?.status === 503 ? res.json() : undefined;
      },
      MODEL_LATENCY_MS,
      a,
    );
    expect(draining).toEqual({ error: 'Not ready', reason: 'shutting down' });

    // Worker B starts meanwhile, as a new pod in a rolling update would.
    const b = startWorker({ ...env, WORKER_CONCURRENCY: '4' });
    workers.push(b);

    expect(await exited(a)).toBe(0);
    const drainMs = Date.now() - signalled;
    expect(drainMs).toBeLessThan(MODEL_LATENCY_MS + 10_000);
    expect(a.output.join('')).toContain('SIGTERM received, shutting down');
    // A finished exactly the jobs it held at SIGTERM, and took none after.
    expect([...completedBy(a)].sort()).toEqual([...inFlight].sort());
    for (const id of inFlight) expect((await service.infra.jobStore.get(id))!.status).toBe('completed');

    // B completes the rest; every job completes once.
    for (const id of jobIds) expect((await service.waitForJob(id, account.secretKey, 45_000)).status).toBe('completed');
    // B logs "generation completed" just after the record turns completed; its pipe may lag behind.
    const rest = jobIds.filter((id) => !inFlight.includes(id)).sort();
    const byB = await until('worker B to log every job it completed', () => (completedBy(b).size >= rest.length ? completedBy(b) : undefined), 10_000, b);
    expect([...byB].sort()).toEqual(rest);

    // Nothing lost, nothing doubled, no quota unit leaked.
    expect(await service.infra.db.prisma.image.count({ where: { jobId: { in: jobIds } } })).toBe(JOBS);
    const { body: view } = await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`);
    expect(view.quotaUsed).toBe(JOBS);
    // BullMQ moves a job out of "active" one round trip after its processor returns.
    const idle = { waiting: 0, active: 0, delayed: 0, failed: 0, groupsWaiting: 0, largestGroupBacklog: 0 };
    const depth = await until(
      'the queue to drain',
      async () => {
        const now = await service.infra.queue.depth();
        return JSON.stringify(now) === JSON.stringify(idle) ? now : undefined;
      },
      10_000,
    ).catch(async () => service.infra.queue.depth());
    expect(depth).toEqual(idle);

    // B's operations port: health, readiness, dependency status and its own generation series.
    const port = await until(
      'worker B metrics port',
      () => b.lines().find((l) => l.message === 'worker metrics listening')?.port as number | undefined,
      10_000,
      b,
    );
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
    expect(await (await fetch(`${base}/api/ready`)).json()).toEqual({ status: 'ready' });
    expect(await (await fetch(`${base}/api/status`)).json()).toEqual({
      status: 'ok',
      dependencies: { database: 'ok', redis: 'ok', storage: 'ok' },
      models: { procedural: 'up' },
    });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain(`promptpix_generation_duration_seconds_count{provider="procedural",outcome="success"} ${JOBS - inFlight.length}`);

    b.kill('SIGTERM');
    expect(await exited(b)).toBe(0);
  }, 150_000);
});
