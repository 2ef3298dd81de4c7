/**
 * One model backend failing never becomes every model's wait, and a retry redoes only what failed
 * (docs/guarantees.md, "When a dependency fails"; docs/operating/models.md, "Isolation between
 * backends"). On both shapes: embedded (PGlite, the in-process queue and job store, local disk,
 * the worker in the test process) and production (PostgreSQL, Redis, BullMQ, an S3-protocol
 * server, two worker processes running the built bundle). The backends are protocol fakes of
 * AUTOMATIC1111 beside the built-in renderer; nothing in the service is replaced.
 *
 * The hang scenario runs with the default settings (timeouts, breaker, bulkhead, retries), both
 * shapes at once, so it costs the file one wait of the slow-call threshold (45 s), not two.
 */
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startTestService, SHAPES, type Shape, type TestAccount, type TestService } from '@promptpix/server/testing';
import { startFakeA1111, times, type FakeA1111Behaviour, type FakeProviderServer } from '@promptpix/testing/fake-providers';
import { startFaultProxy, startWorkerProcess, until, type FaultProxy, type ServiceProcess } from '@promptpix/testing';

jest.setTimeout(240_000);

/** The built-in renderer's time per image in these tests, as in the issue: 1 s. */
const BUILT_IN_MS = 1000;
/** The a1111 defaults the scenario relies on (docs/operating/models.md): slow-call threshold 45 s. */
const A1111_SLOW_CALL_MS = 45_000;
/** The documented bound on a job of a hung backend when its calls open the breaker: the slow-call threshold, the slow call's watch (2 s), a retry's backoff and a deferral (2 s), and slack. */
const HUNG_JOB_BOUND_MS = A1111_SLOW_CALL_MS + 15_000;

function modelsFile(models: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'isolation-models-'));
  const file = join(dir, 'models.json');
  writeFileSync(file, JSON.stringify({ default: 'builtin', models: { builtin: { backend: 'procedural', latencyMs: BUILT_IN_MS }, ...models } }));
  return file;
}

/** A service of either shape; production runs `workers` worker processes (the built bundle) with `workerEnv`. */
async function startShape(shape: Shape, env: Record<string, string>, options: { workers?: number; workerEnv?: Record<string, string> } = {}) {
  const workers: ServiceProcess[] = [];
  let s3Proxy: FaultProxy | undefined;
  const service = await startTestService(shape, env, { worker: shape === 'embedded' });
  if (shape === 'production') {
    s3Proxy = await startFaultProxy({ port: Number(new URL(service.s3!.endpoint).port) });
    for (let i = 0; i < (options.workers ?? 1); i++)
      workers.push(startWorkerProcess({ ...service.env, ...env, S3_ENDPOINT: `http://${s3Proxy.address}`, ...options.workerEnv }));
    await until(
      async () => workers.every((w) => w.lines().some((l) => l.message === 'worker consuming generation jobs')),
      Boolean,
      'the workers to start',
      60_000,
    );
  }
  /** JSON log lines of the worker(s), whichever shape. */
  const lines = (): Array<Record<string, any>> =>
    shape === 'embedded'
      ? service.logs
          .flatMap((chunk) => chunk.split('\n'))
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, any>)
      : workers.flatMap((w) => w.lines());
  return {
    service,
    workers,
    s3Proxy,
    lines,
    async stop() {
      for (const worker of workers) {
        worker.child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([worker.exited(), new Promise((r) => (timer = setTimeout(r, 10_000)))]);
        clearTimeout(timer);
        await worker.kill();
      }
      await s3Proxy?.stop();
      await service.stop();
    },
  };
}

async function generate(service: TestService, account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${service.baseUrl}/api/v1/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ width: 256, height: 256, format: 'png', ...body }),
  });
  if (response.status !== 202) throw new Error(`generate answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { jobId: string }).jobId;
}

const ended = (service: TestService, jobId: string, timeoutMs: number) =>
  until(
    () => service.infra.jobStore.get(jobId),
    (job) => job?.status === 'completed' || job?.status === 'failed',
    `job ${jobId} to end`,
    timeoutMs,
  );

/** Submit → completed, as the caller waits for it (read from the job store every 20 ms). */
async function latencyOf(service: TestService, account: TestAccount, prompt: string): Promise<number> {
  const started = Date.now();
  const jobId = await generate(service, account, { prompt });
  for (;;) {
    const job = await service.infra.jobStore.get(jobId);
    if (job?.status === 'completed') return Date.now() - started;
    if (job?.status === 'failed') throw new Error(`the built-in model's job failed: ${job.error}`);
    if (Date.now() - started > 30_000) throw new Error(`the built-in model's job ${jobId} is still ${job?.status} after 30 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const median = (values: number[]) => percentile(values, 0.5);
const txt2imgCalls = (fake: FakeProviderServer<FakeA1111Behaviour>) => fake.requests.filter((r) => r.method === 'POST' && r.path === '/sdapi/v1/txt2img');
const quotaUsed = async (service: TestService, account: TestAccount) =>
  (await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed as number;

interface HangReport {
  shape: Shape;
  idleMs: number[];
  duringHangMs: number[];
  breakerOpenedAfterMs: number;
  hungJobsEndedAfterMs: number[];
  backendCalls: number;
}

/** One shape's service (production: two worker processes), with a hung AUTOMATIC1111 (`sdxl`) and a healthy one (`gpu`) beside the built-in model. */
interface ShapeUnderTest {
  shape: Shape;
  running: Awaited<ReturnType<typeof startShape>>;
  service: TestService;
  account: TestAccount;
  hung: FakeProviderServer<FakeA1111Behaviour>;
  gpu: FakeProviderServer<FakeA1111Behaviour>;
}

async function startShapeUnderTest(shape: Shape): Promise<ShapeUnderTest> {
  const [hung, gpu] = await Promise.all([startFakeA1111(), startFakeA1111()]);
  hung.setBehaviour({ delayMs: Infinity });
  const file = modelsFile({ sdxl: { backend: 'a1111', baseUrl: hung.url, steps: 4 }, gpu: { backend: 'a1111', baseUrl: gpu.url, steps: 4 } });
  // Every setting at the service's default: the test service's quick-test ones (fast retries) are put back.
  const running = await startShape(shape, { MODELS_FILE: file, JOB_BACKOFF_MS: '1000', JOB_ATTEMPTS: '3', WORKER_CONCURRENCY: '4' }, { workers: 2 });
  const account = await running.service.createAccount({ plan: 'business', monthlyGenerations: 1000 });
  return { shape, running, service: running.service, account, hung, gpu };
}

/**
 * An AUTOMATIC1111 backend that accepts calls and never answers, beside the built-in model, with
 * every setting at its default: eight jobs for the hung backend, and the built-in model's jobs
 * measured before and during the hang.
 */
async function hangScenario({ shape, service, account, hung }: ShapeUnderTest, bothWarm: (shape: Shape) => Promise<void>): Promise<HangReport> {
  const quotaBefore = await quotaUsed(service, account);
  // The first job of a fresh process loads what every later one reuses (the renderer, sharp, connections).
  await latencyOf(service, account, `${shape} warm-up built-in job`);
  // Idle is measured while the other shape measures its own (the load the hang is measured under too).
  await bothWarm(shape);
  const idleMs: number[] = [];
  for (let i = 0; i < 5; i++) idleMs.push(await latencyOf(service, account, `${shape} idle built-in job ${i}`));

  const hangStarted = Date.now();
  const hungJobs: string[] = [];
  for (let i = 0; i < 8; i++) hungJobs.push(await generate(service, account, { prompt: `${shape} a job for the hung backend ${i}`, model: 'sdxl' }));
  await until(
    async () => txt2imgCalls(hung).length,
    (n) => n >= 2,
    `${shape}: the hung backend to hold its calls`,
    30_000,
  );

  // The built-in model's jobs, one after another, for as long as the hung backend's breaker is closed.
  const duringHangMs: number[] = [];
  const sdxl = async () => ((await (await fetch(`${service.baseUrl}/api/status`)).json()) as { models?: Record<string, string> }).models?.sdxl;
  let breakerOpenedAfterMs = 0;
  for (let i = 0; breakerOpenedAfterMs === 0; i++) {
    duringHangMs.push(await latencyOf(service, account, `${shape} built-in job during the hang ${i}`));
    if ((await sdxl()) === 'down') breakerOpenedAfterMs = Date.now() - hangStarted;
    if (Date.now() - hangStarted > 120_000)
      throw new Error(`${shape}: the breaker of the hung backend did not open within 120 s (/api/status says ${await sdxl()})`);
  }

  const hungJobsEndedAfterMs: number[] = [];
  for (const jobId of hungJobs) {
    const job = await ended(service, jobId, HUNG_JOB_BOUND_MS * 2);
    hungJobsEndedAfterMs.push(Date.parse(job!.completedAt!) - Date.parse(job!.createdAt));
    expect({ shape, status: job?.status, error: job?.error }).toEqual({
      shape,
      status: 'failed',
      error: 'Image generation failed: the model "sdxl" is unavailable (its backend keeps failing); try again later',
    });
  }
  // Refunded: only the built-in model's jobs are counted.
  const builtIn = 1 + idleMs.length + duringHangMs.length;
  await until(
    () => quotaUsed(service, account),
    (used) => used === quotaBefore + builtIn,
    `${shape}: the hung jobs' units to be refunded`,
    20_000,
  );
  return { shape, idleMs, duringHangMs, breakerOpenedAfterMs, hungJobsEndedAfterMs, backendCalls: txt2imgCalls(hung).length };
}

const shapes = new Map<Shape, ShapeUnderTest>();
beforeAll(async () => {
  for (const started of await Promise.all(SHAPES.map(startShapeUnderTest))) shapes.set(started.shape, started);
});
afterAll(async () => {
  await Promise.all(
    [...shapes.values()].map(async ({ running, hung, gpu }) => {
      await running.stop();
      await Promise.all([hung.stop(), gpu.stop()]);
    }),
  );
});

describe('one backend hangs: every other model keeps its latency (default settings)', () => {
  it('embedded and production at once: the built-in model within 2x of its idle latency, the breaker open within 90 s, the hung jobs failed and refunded within the bound, the backend never holding more than its limit', async () => {
    const warm = new Map<Shape, () => void>();
    const allWarm = Promise.all(SHAPES.map((shape) => new Promise<void>((resolve) => warm.set(shape, resolve))));
    const bothWarm = (shape: Shape) => {
      warm.get(shape)!();
      return allWarm.then(() => undefined);
    };
    const reports = await Promise.all(SHAPES.map((shape) => hangScenario(shapes.get(shape)!, bothWarm)));
    for (const r of reports) {
      console.log(
        `${r.shape}: built-in job idle ${r.idleMs.join('/')} ms, during the hang median ${median(r.duringHangMs)} p90 ${percentile(r.duringHangMs, 0.9)} max ${Math.max(...r.duringHangMs)} ms over ${r.duringHangMs.length} jobs; breaker open after ${r.breakerOpenedAfterMs} ms; hung jobs ended ${Math.min(...r.hungJobsEndedAfterMs)}–${Math.max(...r.hungJobsEndedAfterMs)} ms after they were created; backend calls ${r.backendCalls}`,
      );
      const idle = median(r.idleMs);
      const p90 = percentile(r.duringHangMs, 0.9);
      const slowest = Math.max(...r.duringHangMs);
      const slowestHungJob = Math.max(...r.hungJobsEndedAfterMs);
      // Nine in ten of the built-in model's jobs within twice their idle latency, and none waiting
      // for a slot (that wait would last until a hung call ends: the slow-call threshold or more).
      expect({ shape: r.shape, idle, p90, withinTwiceIdle: p90 <= 2 * idle }).toMatchObject({ withinTwiceIdle: true });
      expect({ shape: r.shape, slowest, noSlotWait: slowest < 10_000 }).toMatchObject({ noSlotWait: true });
      expect({ shape: r.shape, breakerOpenedAfterMs: r.breakerOpenedAfterMs, within90s: r.breakerOpenedAfterMs <= 90_000 }).toMatchObject({ within90s: true });
      expect({ shape: r.shape, slowestHungJob, withinBound: slowestHungJob <= HUNG_JOB_BOUND_MS }).toMatchObject({ withinBound: true });
      // a1111's overall limit: two calls in flight, however many workers and slots.
      expect({ shape: r.shape, calls: r.backendCalls }).toEqual({ shape: r.shape, calls: 2 });
    }
  });
});

describe.each(SHAPES)('a retry redoes only what failed (%s)', (shape) => {
  // The same service as above, on its healthy backend `gpu` (production: two workers, so a retry
  // may land on the worker that kept the image or on the other, which reads the job store's copy).
  let fake: FakeProviderServer<FakeA1111Behaviour>;
  let running: ShapeUnderTest['running'];
  let service: TestService;
  let account: TestAccount;
  beforeAll(() => {
    ({ gpu: fake, running, service, account } = shapes.get(shape)!);
  });

  const callsFor = (prompt: string) => txt2imgCalls(fake).filter((r) => String(r.json?.prompt).includes(prompt));
  const logged = (message: string, jobId: string) => running.lines().filter((l) => l.message === message && l.jobId === jobId);

  /** The image objects in storage: the bucket's (production), the files under the local root (embedded). */
  async function storedImages(): Promise<string[]> {
    if (shape === 'production') {
      const s3 = service.s3!;
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      try {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'images/' }));
        return (listed.Contents ?? []).map((o) => o.Key!);
      } finally {
        client.destroy();
      }
    }
    try {
      return readdirSync(join(localRoot(), 'images')).filter((name) => !name.startsWith('.'));
    } catch {
      return [];
    }
  }
  const localRoot = () => (service.config.storage.kind === 'local' ? service.config.storage.root : '');

  /** Storage refuses writes: the S3 proxy the workers go through resets every connection; on local disk, a file stands where the images directory goes. */
  function storageDown(): void {
    if (shape === 'production') {
      running.s3Proxy!.cut();
      return;
    }
    const images = join(localRoot(), 'images');
    mkdirSync(images, { recursive: true });
    renameSync(images, `${images}.aside`);
    writeFileSync(images, 'not a directory');
  }
  function storageUp(): void {
    if (shape === 'production') {
      running.s3Proxy!.pass();
      return;
    }
    const images = join(localRoot(), 'images');
    rmSync(images, { force: true });
    renameSync(`${images}.aside`, images);
  }

  it('storage refusing writes while jobs finish: each model call made once, the retry stores the same image (one object per job, none orphaned), with the same seed', async () => {
    const before = await storedImages();
    const prompts = [1, 2, 3].map((i) => `${shape} a lighthouse while storage is down ${i}`);
    storageDown();
    let jobIds: string[];
    try {
      jobIds = await Promise.all(prompts.map((prompt) => generate(service, account, { prompt, model: 'gpu' })));
      await until(
        async () => jobIds.filter((id) => logged('generation attempt failed, will retry', id).length > 0).length,
        (n) => n === jobIds.length,
        `${shape}: every job's first attempt to fail on storage`,
        30_000,
      );
    } finally {
      storageUp();
    }
    for (const [i, jobId] of jobIds.entries()) {
      const job = await ended(service, jobId, 30_000);
      expect({ prompt: prompts[i], status: job?.status, error: job?.error }).toEqual({ prompt: prompts[i], status: 'completed', error: undefined });
      // One model call per job, with the seed the job reports.
      expect(callsFor(prompts[i]).map((r) => r.json.seed)).toEqual([job!.seed]);
      await until(
        async () => logged('generation retried with the image a previous attempt made: no model call', jobId).length,
        (n) => n >= 1,
        'the retry to say it reused the image',
        10_000,
      );
    }
    const after = await storedImages();
    expect(after.filter((key) => !before.includes(key))).toHaveLength(prompts.length);
  });

  it('a model call that fails is retried with the same seed, so the retry makes the same image', async () => {
    // The first try's call fails after the adapter's own three HTTP attempts; the job's second try succeeds.
    fake.setBehaviour({ failures: times(3, { status: 500, message: 'CUDA out of memory.' }) });
    const prompt = `${shape} a heron, the first call fails`;
    const jobId = await generate(service, account, { prompt, model: 'gpu' });
    const job = await ended(service, jobId, 30_000);
    expect(job?.status).toBe('completed');
    expect(logged('generation attempt failed, will retry', jobId)).toHaveLength(1);
    const seeds = callsFor(prompt).map((r) => r.json.seed);
    expect(seeds).toEqual([job!.seed, job!.seed, job!.seed, job!.seed]);
  });
});
