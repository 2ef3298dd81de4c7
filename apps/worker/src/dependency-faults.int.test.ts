/**
 * What happens when a dependency fails while a job runs, production shape: worker processes
 * (the built bundle, as the Docker image runs it) reach PostgreSQL, Redis, the S3-protocol server and
 * the model backend through fault-injecting TCP proxies; the gateway runs in the test process on
 * the same database, Redis prefix and bucket. Each test names what the caller and the operator
 * see, and checks that the records stay exact: the job's final state, one Image row and its stored
 * object (decodable, of the size asked for), the quota counted once, one completion.
 */
import sharp from 'sharp';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { startFakeA1111, type FakeA1111Behaviour, type FakeProviderServer } from '@promptpix/testing/fake-providers';
import { startFaultProxy, startWorkerProcess, TEST_POSTGRES, TEST_REDIS_URL, type FaultProxy, type ServiceProcess } from '@promptpix/testing';

const SIZE = 256;
// Each wait below gives up (naming what it waited for, with the workers' output) well before this.
jest.setTimeout(120_000);

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  workers: ServiceProcess[] = [],
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${workers.map((w) => `\n--- worker output:\n${w.output().slice(-4000)}`).join('')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a dependency fails while a job runs (production shape, worker processes)', () => {
  let service: TestService;
  let pg: FaultProxy;
  let redis: FaultProxy;
  let s3: FaultProxy;
  let backend: FakeProviderServer<FakeA1111Behaviour>;
  let backendWire: FaultProxy;
  let workers: ServiceProcess[] = [];

  beforeAll(async () => {
    // Retries are spaced as in production (1 s, then 2 s): a retry's window is what lets a job
    // outlast a dependency's outage. (Attempts and backoff are set where the job is queued.)
    service = await startTestService('production', { JOB_BACKOFF_MS: '1000' }, { worker: false });
    pg = await startFaultProxy({ host: TEST_POSTGRES.host, port: TEST_POSTGRES.port });
    const redisUrl = new URL(TEST_REDIS_URL);
    redis = await startFaultProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    s3 = await startFaultProxy({ port: Number(new URL(service.s3!.endpoint).port) });
    backend = await startFakeA1111();
    backendWire = await startFaultProxy({ port: Number(new URL(backend.url).port) });
  });
  afterEach(async () => {
    for (const proxy of [pg, redis, s3, backendWire]) proxy?.pass();
    backend?.setBehaviour({});
    if (process.env.DEBUG_FAULTS)
      console.log(
        workers
          .flatMap((w) => w.lines())
          .filter((l) => process.env.DEBUG_FAULTS === 'all' || l.level !== 'info' || /fail|back/.test(String(l.message)))
          .map((l) => JSON.stringify(l))
          .join('\n'),
      );
    for (const worker of workers) {
      if (worker.child.exitCode === null) worker.child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([worker.exited(), new Promise((r) => (timer = setTimeout(r, 10_000)))]);
      clearTimeout(timer);
      await worker.kill();
    }
    workers = [];
  });
  afterAll(async () => {
    for (const proxy of [pg, redis, s3, backendWire]) await proxy?.stop();
    await backend?.stop();
    await service?.stop();
  });

  /** A worker that reaches every dependency through its proxy. */
  function startWorker(env: Record<string, string> = {}): ServiceProcess {
    const database = new URL(service.env.DATABASE_URL);
    database.host = pg.address;
    const worker = startWorkerProcess({
      ...service.env,
      DATABASE_URL: database.toString(),
      REDIS_URL: `redis://${redis.address}`,
      S3_ENDPOINT: `http://${s3.address}`,
      WORKER_CONCURRENCY: '2',
      ...env,
    });
    workers.push(worker);
    return worker;
  }

  const backendEnv = (env: Record<string, string> = {}) => ({
    MODEL_PROVIDER: 'a1111',
    A1111_BASE_URL: `http://${backendWire.address}`,
    A1111_STEPS: '4',
    MODEL_HTTP_ATTEMPTS: '1',
    // Each test here is one fault on its own. The model's circuit breaker (tested in
    // model-routing) would otherwise count the failures of earlier tests, all on model id
    // "a1111" in the same Redis, and once 5 fall within its minute, fail the next test's job fast.
    MODEL_BREAKER_FAILURES: '0',
    ...env,
  });

  async function generate(account: TestAccount, prompt: string): Promise<string> {
    const response = await fetch(`${service.baseUrl}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, width: SIZE, height: SIZE, format: 'png' }),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { jobId: string }).jobId;
  }

  const status = async (jobId: string) => (await service.infra.jobStore.get(jobId))?.status;
  const processing = (jobId: string) => until(`job ${jobId} to be processing`, async () => (await status(jobId)) === 'processing', 45_000, workers);
  const quotaUsed = async (account: TestAccount) => (await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed as number;
  const logged = (message: string, jobId: string) => workers.flatMap((w) => w.lines()).filter((l) => l.message === message && l.jobId === jobId);

  /** The job as the caller reads it, once it has ended. */
  const finished = (jobId: string, account: TestAccount) =>
    until(
      `job ${jobId} to end`,
      async () => {
        const response = await fetch(`${service.baseUrl}/api/v1/job/${jobId}`, { headers: { authorization: `Bearer ${account.secretKey}` } });
        const job = (await response.json()) as { status: string; error?: string; imageId?: string };
        return ['completed', 'failed', 'cancelled'].includes(job.status) ? job : undefined;
      },
      45_000,
      workers,
    );

  /** Completed once, with one Image row whose stored object decodes at the size asked for; one quota unit. */
  async function expectCompletedOnce(jobId: string, account: TestAccount) {
    const job = await finished(jobId, account);
    expect(job).toMatchObject({ status: 'completed' });
    const images = await service.infra.db.prisma.image.findMany({ where: { jobId } });
    expect(images).toHaveLength(1);
    expect(job.imageId).toBe(images[0].id);
    const stored = await service.infra.storage.get(images[0].storageKey);
    expect(stored).not.toBeNull();
    expect(stored!.length).toBe(images[0].bytes);
    const decoded = await sharp(stored!, { failOn: 'error' }).raw().toBuffer({ resolveWithObject: true });
    expect([decoded.info.width, decoded.info.height]).toEqual([SIZE, SIZE]);
    expect(await quotaUsed(account)).toBe(1);
    // The completing worker logs it just after the record turns completed; its pipe may lag.
    await until('the completion log line', () => logged('generation completed', jobId).length > 0, 10_000, workers);
    expect(logged('generation completed', jobId)).toHaveLength(1);
    return { job, image: images[0] };
  }

  /** Failed with a readable error, no Image row, the quota unit given back. */
  async function expectFailedAndRefunded(jobId: string, account: TestAccount) {
    const job = await finished(jobId, account);
    expect(job.status).toBe('failed');
    expect(await service.infra.db.prisma.image.count({ where: { jobId } })).toBe(0);
    // The worker gives the unit back just after the record reads failed.
    await until('the quota unit to be refunded', async () => (await quotaUsed(account)) === 0, 10_000, workers);
    await until('the final failure log line', () => logged('generation failed', jobId).length > 0, 10_000, workers);
    expect(logged('generation completed', jobId)).toHaveLength(0);
    return job as { status: 'failed'; error: string };
  }

  describe('storage', () => {
    it('refusing writes while a job finishes: the caller sees the job complete (retried) with its file; the operator sees the failed attempt logged; one image, one quota unit', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      startWorker({ MODEL_LATENCY_MS: '800' });
      const jobId = await generate(account, 'a lighthouse in a storm, storage down');
      await processing(jobId);
      s3.cut();
      const failedAttempt = await until(
        'the attempt that could not store to fail',
        () => logged('generation attempt failed, will retry', jobId)[0],
        30_000,
        workers,
      );
      expect(await status(jobId)).toBe('processing');
      s3.pass();
      await expectCompletedOnce(jobId, account);
      expect(failedAttempt).toMatchObject({ level: 'warn', attempt: 1, maxAttempts: 3 });
      expect(s3.stats().refused).toBeGreaterThan(0);
    });
  });

  describe('worker stopped', () => {
    it('SIGTERM in the middle of a model call longer than the grace period: the job is handed back and completed by another worker once; the caller sees it complete; the operator sees "handed back"', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      const first = startWorker({ MODEL_LATENCY_MS: '600000', WORKER_SHUTDOWN_GRACE_MS: '500' });
      const jobId = await generate(account, 'a clock tower at dusk, handed back');
      await processing(jobId);
      first.child.kill('SIGTERM');
      const second = startWorker({ MODEL_LATENCY_MS: '0' });
      expect(await first.exited()).toBe(0);
      expect(
        first
          .lines()
          .filter((l) => l.message === 'generation handed back to the queue: shutdown grace period over')
          .map((l) => l.jobId),
      ).toEqual([jobId]);
      const { job } = await expectCompletedOnce(jobId, account);
      expect(job.status).toBe('completed');
      // The hand-back spent no attempt, and the second worker is the one that completed it.
      expect(second.lines().find((l) => l.message === 'generation completed' && l.jobId === jobId)).toMatchObject({ attempt: 1 });
    });
  });

  describe('model backend', () => {
    it('answering slowly, byte by byte, within the time limit: the caller gets the whole image', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      backendWire.set({ kind: 'slow', chunkBytes: 16, intervalMs: 1 });
      startWorker(backendEnv({ MODEL_TIMEOUT_MS: '30000' }));
      const jobId = await generate(account, 'a kite over the dunes, slow wire');
      await expectCompletedOnce(jobId, account);
    });

    it('answering slower than MODEL_TIMEOUT_MS: the attempt times out and is logged, the retry completes once', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      backendWire.set({ kind: 'slow', chunkBytes: 1, intervalMs: 200 });
      startWorker(backendEnv({ MODEL_TIMEOUT_MS: '1000' }));
      const jobId = await generate(account, 'a heron in the reeds, too slow');
      const failedAttempt = await until('the timed-out attempt', () => logged('generation attempt failed, will retry', jobId)[0], 30_000, workers);
      expect(failedAttempt.error).toMatch(/a1111: no result within 1000 ms/);
      backendWire.pass();
      await expectCompletedOnce(jobId, account);
    });

    it('a 200 whose body is cut short on the wire: the job fails with a readable error after its retries, nothing stored, the quota unit refunded', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      backendWire.set({ kind: 'truncate', afterBytes: 300 });
      startWorker(backendEnv());
      const jobId = await generate(account, 'a teapot on a table, cut wire');
      const job = await expectFailedAndRefunded(jobId, account);
      expect(job.error).toMatch(/^Image generation failed: a1111: /);
    });

    it('a 200 carrying a truncated PNG: never stored; the job fails with a readable error, quota refunded', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      backend.setBehaviour({ image: { kind: 'truncated' } });
      startWorker(backendEnv());
      const jobId = await generate(account, 'a sailing boat, half an image');
      const job = await expectFailedAndRefunded(jobId, account);
      expect(job.error).toMatch(/^Image generation failed: .*(cannot be decoded|read error)/);
    });

    it('a 200 carrying something that is not an image: never stored; the job fails naming the backend, quota refunded', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      backend.setBehaviour({ image: { kind: 'bytes', data: Buffer.from('<html><body>502 Bad Gateway</body></html>') } });
      startWorker(backendEnv());
      const jobId = await generate(account, 'a fox in the snow, not an image');
      const job = await expectFailedAndRefunded(jobId, account);
      expect(job.error).toMatch(/^Image generation failed: a1111: the returned image cannot be decoded/);
    });

    it('bytes corrupted on the wire inside the image: a corrupt image is never stored; the job fails, quota refunded', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      backendWire.set({ kind: 'corrupt', afterBytes: 400, everyBytes: 97 });
      startWorker(backendEnv());
      const jobId = await generate(account, 'a red barn in a field, corrupt wire');
      const job = await expectFailedAndRefunded(jobId, account);
      expect(job.error).toMatch(/^Image generation failed: /);
    });

    it("refusing connections: the job fails, refunded, with an error that names no internal address; the operator's log has the address", async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      // Nothing listens on the port of a proxy that has stopped.
      const closed = await startFaultProxy({ port: 1 });
      const address = closed.address;
      await closed.stop();
      startWorker(backendEnv({ A1111_BASE_URL: `http://${address}` }));
      const jobId = await generate(account, 'a lantern on a jetty, backend refusing');
      const job = await expectFailedAndRefunded(jobId, account);
      expect(job.error).toBe('Image generation failed: a1111: network error calling /sdapi/v1/txt2img: connect ECONNREFUSED <address>');
      // The operators' and the account's list of failed jobs shows the same reason (written just after the job reads failed).
      const failed = await until(
        'the failed job to be listed',
        () => service.infra.db.prisma.failedJob.findUnique({ where: { jobId } }).then((row) => row ?? undefined),
        10_000,
        workers,
      );
      expect(failed.reason).toBe(job.error);
      expect(logged('generation failed', jobId)[0].error).toContain(`ECONNREFUSED ${address}`);
    });

    it('an image of the wrong size: fitted to the size asked for', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      backend.setBehaviour({ image: { kind: 'size', width: 96, height: 64 } });
      startWorker(backendEnv());
      const jobId = await generate(account, 'a windmill, wrong size');
      const { image } = await expectCompletedOnce(jobId, account);
      expect([image.width, image.height]).toEqual([SIZE, SIZE]);
    });
  });

  describe('Redis and PostgreSQL', () => {
    /**
     * Cuts `proxy` once the job runs and keeps it cut for `outageMs` (the fault's length), and, with
     * `untilUpload`, until the worker has stored the image (the S3 proxy carried its upload), so the
     * completion steps meet the outage.
     */
    async function outageWhileCompleting(proxy: FaultProxy, jobId: string, outageMs: number, untilUpload: boolean) {
      await processing(jobId);
      const s3Bytes = s3.stats().bytes;
      const cutAt = Date.now();
      proxy.cut();
      await until('the outage to have lasted', () => Date.now() - cutAt >= outageMs && (!untilUpload || s3.stats().bytes > s3Bytes), 30_000, workers);
      proxy.pass();
    }

    it('Redis gone for a few seconds while a job completes: the caller sees it complete once; nothing lost', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      // A job whose end could not be recorded while Redis was gone comes back through BullMQ's
      // stalled check once its lock lapses: lock + half a lock (45 s with the default 30 s lock,
      // as long as this test waits). A 5 s lock keeps that recovery well inside the wait.
      startWorker({ MODEL_LATENCY_MS: '800', JOB_LOCK_MS: '5000' });
      const jobId = await generate(account, 'a harbour at night, redis down');
      await outageWhileCompleting(redis, jobId, 3000, false);
      expect(redis.stats().refused).toBeGreaterThan(0);
      await expectCompletedOnce(jobId, account);
      // The outage is logged as structured lines, not printed by ioredis to stderr.
      expect(workers.map((w) => w.output()).join('\n')).not.toContain('Unhandled error event');
      expect(workers.flatMap((w) => w.lines()).some((l) => l.message === 'redis connection error')).toBe(true);
    });

    it('PostgreSQL gone when a job fails for good: the job reads failed at once, and its quota unit comes back once PostgreSQL does', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      // A slow answer that is not an image: the cut lands while the model call runs.
      backend.setBehaviour({ image: { kind: 'bytes', data: Buffer.from('<html><body>502 Bad Gateway</body></html>') } });
      backendWire.set({ kind: 'slow', chunkBytes: 64, intervalMs: 150 });
      startWorker(backendEnv());
      const jobId = await generate(account, 'a quiet pond, database down at the end');
      await processing(jobId);
      pg.cut();
      try {
        const job = await finished(jobId, account);
        expect(job.status).toBe('failed');
        await until('the refund to fail once', () => logged('quota refund failed, will retry', jobId).length > 0, 30_000, workers);
        expect(await quotaUsed(account)).toBe(1);
      } finally {
        pg.pass();
      }
      await until('the quota unit to be refunded', async () => (await quotaUsed(account)) === 0, 30_000, workers);
      await until('the refund log line', () => logged('quota refund landed after retries', jobId).length > 0, 10_000, workers);
      expect(logged('quota refund lost', jobId)).toHaveLength(0);
    });

    it('PostgreSQL gone for a few seconds while a job completes: the caller sees it complete once; nothing lost', async () => {
      const account = await service.createAccount({ monthlyGenerations: 10 });
      startWorker({ MODEL_LATENCY_MS: '800' });
      const jobId = await generate(account, 'a mountain lake, database down');
      await outageWhileCompleting(pg, jobId, 3000, true);
      expect(pg.stats().refused).toBeGreaterThan(0);
      await expectCompletedOnce(jobId, account);
    });
  });
});
