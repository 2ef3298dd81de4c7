/**
 * Fair dequeuing over HTTP, on both shapes: jobs of several accounts wait while no worker runs,
 * then one worker slot takes them. Accounts take turns, each account's jobs run in the order they
 * were sent, and a job's event stream reports its place in that order. On the production shape a
 * worker killed while it holds an account's job loses nothing and charges nothing twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import winston from 'winston';
import type { ImageModel } from '@promptpix/core';
import { createLogger } from '@promptpix/runtime';
import { startWorkers } from '@promptpix/worker';
import { firstSseEvent, until } from '@promptpix/testing';
import { SHAPES, startTestService, type TestAccount, type TestService } from './testing';

const ROOT = resolve(__dirname, '../../..');
const quietLogger = () =>
  createLogger({ level: 'error', format: 'json', service: 'fair-queue-test', transports: [new winston.transports.Console({ silent: true })] });

/** Records which prompt each model call was for, in the order the calls start. */
const recordingModel =
  (starts: string[]) =>
  (configured: ImageModel): ImageModel => ({
    name: configured.name,
    generate: (request, signal) => {
      starts.push(request.prompt);
      return configured.generate(request, signal);
    },
  });

async function generate(service: TestService, account: TestAccount, prompt: string): Promise<string> {
  const response = await fetch(`${service.baseUrl}/api/v1/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, width: 256, height: 256 }),
  });
  const body = await response.json();
  if (response.status !== 202) throw new Error(`generate answered ${response.status}: ${JSON.stringify(body)}`);
  return body.jobId as string;
}

/** The first `status` event of a job's event stream. */
const firstStatusEvent = async (service: TestService, account: TestAccount, jobId: string) =>
  (await firstSseEvent(`${service.baseUrl}/api/v1/job/${jobId}/events`, { authorization: `Bearer ${account.secretKey}` }))?.data;

describe.each(SHAPES)('fair dequeuing between accounts (%s)', (shape) => {
  it('takes the accounts in turn, each in the order it sent, and reports each place in that order', async () => {
    const starts: string[] = [];
    const service = await startTestService(shape, { WORKER_CONCURRENCY: '1', MODEL_LATENCY_MS: '20' }, { worker: false, model: recordingModel(starts) });
    try {
      const [a, b, c] = [await service.createAccount({ plan: 'pro' }), await service.createAccount(), await service.createAccount()];
      const sent: Array<[TestAccount, string]> = [
        ...['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((p): [TestAccount, string] => [a, `${p} ${shape}`]),
        ...['b1', 'b2', 'b3'].map((p): [TestAccount, string] => [b, `${p} ${shape}`]),
        [c, `c1 ${shape}`],
      ];
      const jobs = new Map<string, string>();
      for (const [account, prompt] of sent) jobs.set(prompt, await generate(service, account, prompt));

      const fairOrder = ['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'b3', 'a4', 'a5', 'a6'].map((p) => `${p} ${shape}`);
      // C's one job waits for one turn of A and one of B, not for A's backlog.
      expect(await firstStatusEvent(service, c, jobs.get(`c1 ${shape}`)!)).toEqual(expect.objectContaining({ status: 'queued', position: 2 }));
      expect(await firstStatusEvent(service, a, jobs.get(`a6 ${shape}`)!)).toEqual(expect.objectContaining({ status: 'queued', position: 9 }));
      expect(await firstStatusEvent(service, b, jobs.get(`b3 ${shape}`)!)).toEqual(expect.objectContaining({ status: 'queued', position: 6 }));

      const workers = startWorkers(service.infra, service.config, quietLogger());
      try {
        for (const [account, prompt] of sent) expect((await service.waitForJob(jobs.get(prompt)!, account.secretKey)).status).toBe('completed');
      } finally {
        await workers.close();
      }
      expect(starts).toEqual(fairOrder);
    } finally {
      await service.stop();
    }
  });
});

describe("a worker killed while it holds an account's job (production)", () => {
  const children: ChildProcess[] = [];
  const exited = (child: ChildProcess) =>
    new Promise<void>((done) => (child.exitCode !== null || child.signalCode !== null ? done() : child.once('exit', () => done())));
  const startWorker = (env: Record<string, string>) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/worker/src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        NODE_ENV: 'production',
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'error',
        METRICS_PORT: '0',
        JOB_LOCK_MS: '2000',
        WORKER_CONCURRENCY: '1',
      },
      stdio: 'ignore',
    });
    children.push(child);
    return child;
  };
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited(child);
      }
  });

  it('another worker finishes every job of both accounts once, each account charged once per job', async () => {
    const service = await startTestService('production', {}, { worker: false });
    try {
      const [a, b] = [await service.createAccount({ monthlyGenerations: 10 }), await service.createAccount({ monthlyGenerations: 10 })];
      const aJobs = [await generate(service, a, 'killed head 1'), await generate(service, a, 'killed head 2'), await generate(service, a, 'killed head 3')];
      const bJob = await generate(service, b, 'the other account');

      const first = startWorker({ ...service.env, MODEL_LATENCY_MS: '60000' });
      await until(
        () => service.infra.jobStore.get(aJobs[0]),
        (job) => job?.status === 'processing',
        "the first worker to take A's first job",
        30_000,
      );
      first.kill('SIGKILL');
      await exited(first);

      const second = startWorker({ ...service.env, MODEL_LATENCY_MS: '0' });
      for (const jobId of aJobs) expect((await service.waitForJob(jobId, a.secretKey, 45_000)).status).toBe('completed');
      expect((await service.waitForJob(bJob, b.secretKey, 45_000)).status).toBe('completed');
      second.kill('SIGTERM');
      await exited(second);

      for (const jobId of [...aJobs, bJob]) expect(await service.infra.db.prisma.image.count({ where: { jobId } })).toBe(1);
      expect((await service.admin('GET', `/admin/api/v1/accounts/${a.handle}`)).body.quotaUsed).toBe(3);
      expect((await service.admin('GET', `/admin/api/v1/accounts/${b.handle}`)).body.quotaUsed).toBe(1);
      expect(await service.infra.queue.depth()).toMatchObject({ waiting: 0, active: 0, groupsWaiting: 0, largestGroupBacklog: 0 });
    } finally {
      await service.stop();
    }
  });
});
