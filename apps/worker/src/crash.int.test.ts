/**
 * A worker killed with SIGKILL in the middle of a generation: the job is not lost. Once its lock
 * lapses, another worker takes it over (BullMQ stalled-job recovery) and completes it, with one
 * Image record and one quota unit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import request from 'supertest';
import { startTestService, type TestService } from '@promptpix/server/testing';

const ROOT = resolve(__dirname, '../../..');

function startWorker(env: Record<string, string>): ChildProcess & { output: string[] } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/worker/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_ENV: 'production', LOG_FORMAT: 'json', METRICS_PORT: '0', JOB_LOCK_MS: '2000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { output: string[] };
  child.output = [];
  child.stdout!.on('data', (d) => child.output.push(String(d)));
  child.stderr!.on('data', (d) => child.output.push(String(d)));
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((done) => (child.exitCode !== null || child.signalCode !== null ? done() : child.once('exit', () => done())));

describe('worker killed mid-generation (SIGKILL)', () => {
  let service: TestService;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    service = await startTestService('production', {}, { worker: false });
  });
  afterAll(async () => {
    for (const w of workers)
      if (w.exitCode === null && w.signalCode === null) {
        w.kill('SIGKILL');
        await exited(w);
      }
    await service?.stop();
  });

  it('the job completes on another worker: one Image record, one quota unit', async () => {
    const account = await service.createAccount({ monthlyGenerations: 10 });
    const started = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'a doomed first attempt', width: 256, height: 256 });
    expect(started.status).toBe(202);
    const jobId = started.body.jobId as string;

    const first = startWorker({ ...service.env, MODEL_LATENCY_MS: '60000' });
    workers.push(first);
    // Wait until the first worker holds the job (it reads as processing), then kill it hard.
    for (let i = 0; i < 400; i++) {
      const job = await service.infra.jobStore.get(jobId);
      if (job?.status === 'processing') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await service.infra.jobStore.get(jobId))?.status).toBe('processing');
    first.kill('SIGKILL');
    await exited(first);

    const second = startWorker({ ...service.env, MODEL_LATENCY_MS: '0' });
    workers.push(second);
    const job = await service.waitForJob(jobId, account.secretKey, 45_000);
    expect(job.status).toBe('completed');
    expect(await service.infra.db.prisma.image.count({ where: { jobId } })).toBe(1);
    expect((await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed).toBe(1);
    second.kill('SIGTERM');
    await exited(second);
  });
});
