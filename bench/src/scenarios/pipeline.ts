/**
 * The job pipeline end to end:
 * - overhead at light load: POST → `completed` visible to a poller, one job at a time, minus the
 *   model + encode time of the same request measured on its own;
 * - worker throughput: one worker process, concurrency 32, a 2 s model, a queue that never runs dry;
 * - worker peak memory: concurrency 8, 2048×2048 PNG.
 */
import { performance } from 'node:perf_hooks';
import { createModel, encodeImage } from '@promptpix/models';
import type { BenchAccount } from '../api';
import type { Ctx } from '../context';
import { summarize, type LatencySummary } from '../load';
import { readCpuMs, readMemory, sampleRss, sleep } from '../proc';

export interface OverheadResult {
  jobs: number;
  size: string;
  pollEveryMs: number;
  totalMs: LatencySummary;
  modelEncodeMs: LatencySummary;
  overheadMs: LatencySummary;
  breakdownMedianMs: { postAnswer: number; queueWait: number; processing: number; processingMinusModelEncode: number; visibleAfterCompleted: number };
}

export interface ThroughputResult {
  concurrency: number;
  modelLatencyMs: number;
  size: string;
  jobs: number;
  completed: number;
  failed: number;
  /** Steady rate: completions between the end of the first wave and ten waves later. */
  sustainedJobsPerS: number;
  windowS: number;
  /** Plain count: completions in the 20 s after the first one, / 20. */
  naiveJobsPer20s: number;
  idealJobsPerS: number;
  workerCpuPct: number;
  workerPeakRssMb?: number;
}

export interface WorkerMemoryResult {
  concurrency: number;
  jobs: number;
  size: string;
  seconds: number;
  baselineRssMb?: number;
  peakRssSampledMb: number;
  vmHwmMb?: number;
}

interface JobHash {
  createdAt?: string;
  startedAt?: string;
  completedAt?: string;
  status?: string;
}

async function jobRecord(ctx: Ctx, jobId: string): Promise<JobHash> {
  return (await ctx.stack.redis.hgetall(`${ctx.stack.redisPrefix}:job:${jobId}`)) as JobHash;
}

/** Finish times (ms) of these BullMQ jobs, from the queue's `completed` sorted set. */
async function finishTimes(ctx: Ctx, jobIds: Set<string>): Promise<number[]> {
  const flat = await ctx.stack.redis.zrange(`${ctx.stack.redisPrefix}:generation:completed`, 0, -1, 'WITHSCORES');
  const out: number[] = [];
  for (let i = 0; i < flat.length; i += 2) if (jobIds.has(flat[i])) out.push(Number(flat[i + 1]));
  return out.sort((a, b) => a - b);
}

async function postMany(ctx: Ctx, acc: BenchAccount, bodies: Array<Record<string, unknown>>, parallel = 32): Promise<string[]> {
  const ids: string[] = new Array(bodies.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < bodies.length) {
        const i = next++;
        ids[i] = await ctx.api.startJob(acc.keys[i % acc.keys.length], bodies[i] as never);
      }
    }),
  );
  return ids;
}

export async function runOverhead(ctx: Ctx, acc: BenchAccount, jobs = 30): Promise<OverheadResult> {
  const { stack, log } = ctx;
  const key = acc.keys[0];
  const size = { width: 256, height: 256, format: 'png' as const };
  const pollEveryMs = 1;
  log('pipeline: warming up the pipeline');
  await ctx.api.generateAll(
    key,
    [0, 1, 2].map((i) => ({ prompt: `pipeline warmup ${i}`, ...size })),
    1,
  );

  const rows: Array<{ prompt: string; total: number; post: number; t0: number; observed: number; jobId: string }> = [];
  for (let i = 0; i < jobs; i++) {
    const prompt = `pipeline probe ${i}: a kite over a green hill`;
    const t0Wall = Date.now();
    const t0 = performance.now();
    const jobId = await ctx.api.startJob(key, { prompt, ...size });
    const post = performance.now() - t0;
    for (;;) {
      const job = await ctx.api.job(key, jobId);
      if (job.status === 'completed') break;
      if (job.status === 'failed') throw new Error(`pipeline probe failed: ${job.error}`);
      await sleep(pollEveryMs);
    }
    const total = performance.now() - t0;
    rows.push({ prompt, total, post, t0: t0Wall, observed: t0Wall + total, jobId });
  }

  // The same requests through the model and the encoder alone, in this process.
  const model = createModel({ provider: 'procedural', latencyMs: 0 });
  const modelEncode = async (prompt: string) => {
    const t = performance.now();
    const generated = await model.generate({ prompt, strength: 1, seed: 12345, width: size.width, height: size.height });
    await encodeImage(generated.data, size);
    return performance.now() - t;
  };
  for (let i = 0; i < 3; i++) await modelEncode(`warmup ${i}`);
  const me: number[] = [];
  for (const r of rows) me.push(await modelEncode(r.prompt));

  const parts = { queueWait: [] as number[], processing: [] as number[], visible: [] as number[] };
  for (const r of rows) {
    const h = await jobRecord(ctx, r.jobId);
    const created = Date.parse(h.createdAt ?? '');
    const started = Date.parse(h.startedAt ?? '');
    const completed = Date.parse(h.completedAt ?? '');
    parts.queueWait.push(started - created);
    parts.processing.push(completed - started);
    parts.visible.push(r.observed - completed);
  }
  const med = (v: number[]) => summarize(v).p50;
  const result: OverheadResult = {
    jobs,
    size: '256x256 png',
    pollEveryMs,
    totalMs: summarize(rows.map((r) => r.total)),
    modelEncodeMs: summarize(me),
    overheadMs: summarize(rows.map((r, i) => r.total - me[i])),
    breakdownMedianMs: {
      postAnswer: med(rows.map((r) => r.post)),
      queueWait: med(parts.queueWait),
      processing: med(parts.processing),
      processingMinusModelEncode: Math.round((med(parts.processing) - med(me)) * 100) / 100,
      visibleAfterCompleted: med(parts.visible),
    },
  };
  log(`pipeline: total p50 ${result.totalMs.p50} ms, model+encode p50 ${result.modelEncodeMs.p50} ms, overhead p50 ${result.overheadMs.p50} ms`);
  void stack;
  return result;
}

export async function runThroughput(ctx: Ctx, acc: BenchAccount, o = { concurrency: 32, modelLatencyMs: 2000, waves: 13 }): Promise<ThroughputResult> {
  const { stack, log } = ctx;
  const jobs = o.concurrency * o.waves;
  const worker = stack.worker!;
  const tag = Date.now().toString(36);
  log(`worker: enqueueing ${jobs} jobs (256x256 png) for concurrency ${o.concurrency}, model ${o.modelLatencyMs} ms`);
  const cpu0 = readCpuMs(worker.pid);
  const t0 = Date.now();
  const rss = sampleRss(worker.pid, 500);
  const ids = await postMany(
    ctx,
    acc,
    Array.from({ length: jobs }, (_, i) => ({ prompt: `throughput ${tag} ${i}: a lantern in the snow`, width: 256, height: 256, format: 'png' })),
  );
  const idSet = new Set(ids);
  const deadline = Date.now() + (jobs / (o.concurrency / (o.modelLatencyMs / 1000))) * 1000 * 2 + 30_000;
  let times: number[] = [];
  while (Date.now() < deadline) {
    times = await finishTimes(ctx, idSet);
    if (times.length >= jobs) break;
    await sleep(500);
  }
  const seconds = (Date.now() - t0) / 1000;
  const cpuPct = Math.round(((readCpuMs(worker.pid) - cpu0) / 10 / seconds) * 10) / 10;
  const peak = rss.stop();
  const failedIds = await stack.redis.zrange(`${stack.redisPrefix}:generation:failed`, 0, -1);
  const failed = failedIds.filter((id) => idSet.has(id)).length;
  // End of wave 1 → end of wave 11: same phase of the cycle, so no rounding to whole waves.
  const i = Math.min(o.concurrency - 1, times.length - 1);
  const j = Math.min(i + 10 * o.concurrency, times.length - 1);
  const windowS = (times[j] - times[i]) / 1000;
  const sustained = j > i ? (j - i) / windowS : 0;
  const first = times[0];
  const naive = times.filter((t) => t > first && t <= first + 20_000).length / 20;
  const result: ThroughputResult = {
    concurrency: o.concurrency,
    modelLatencyMs: o.modelLatencyMs,
    size: '256x256 png',
    jobs,
    completed: times.length,
    failed,
    sustainedJobsPerS: Math.round(sustained * 100) / 100,
    windowS: Math.round(windowS * 100) / 100,
    naiveJobsPer20s: Math.round(naive * 100) / 100,
    idealJobsPerS: o.concurrency / (o.modelLatencyMs / 1000),
    workerCpuPct: cpuPct,
    workerPeakRssMb: Math.round(peak),
  };
  log(
    `worker: ${result.completed}/${jobs} completed, sustained ${result.sustainedJobsPerS} jobs/s over ${result.windowS} s (ideal ${result.idealJobsPerS}), worker CPU ${cpuPct}%`,
  );
  return result;
}

export async function runWorkerMemory(ctx: Ctx, acc: BenchAccount, o = { concurrency: 8, jobs: 16 }): Promise<WorkerMemoryResult> {
  const { stack, log } = ctx;
  const worker = stack.worker!;
  const baseline = readMemory(worker.pid)?.rssMb;
  log(`worker: ${o.jobs} jobs of 2048x2048 png at concurrency ${o.concurrency} (baseline RSS ${baseline?.toFixed(0)} MB)`);
  const t0 = Date.now();
  const rss = sampleRss(worker.pid, 100);
  const tag = Date.now().toString(36);
  const ids = await postMany(
    ctx,
    acc,
    Array.from({ length: o.jobs }, (_, i) => ({ prompt: `big ${tag} ${i}: a detailed map of an old harbour town`, width: 2048, height: 2048, format: 'png' })),
    o.jobs,
  );
  const idSet = new Set(ids);
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline && (await finishTimes(ctx, idSet)).length < o.jobs) await sleep(250);
  const done = (await finishTimes(ctx, idSet)).length;
  if (done < o.jobs) throw new Error(`only ${done}/${o.jobs} 2048x2048 jobs finished in time`);
  const peak = rss.stop();
  const result: WorkerMemoryResult = {
    concurrency: o.concurrency,
    jobs: o.jobs,
    size: '2048x2048 png',
    seconds: Math.round((Date.now() - t0) / 100) / 10,
    baselineRssMb: baseline && Math.round(baseline),
    peakRssSampledMb: Math.round(peak),
    vmHwmMb: Math.round(readMemory(worker.pid)?.hwmMb ?? NaN),
  };
  log(`worker: peak RSS sampled ${result.peakRssSampledMb} MB, VmHWM ${result.vmHwmMb} MB in ${result.seconds} s`);
  return result;
}
