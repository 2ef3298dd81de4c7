/**
 * Replays the first seconds of the trace against the running service (POST /api/v1/generate at
 * the trace's own times, one fresh account per trace account, the trace's sizes swapped for small
 * stand-ins of the same identity), then counts what the service really did: originals stored =
 * model calls, derived variants stored = derivations. The same slice is simulated with the
 * timings the service showed, and the two are compared.
 */
import { performance } from 'node:perf_hooks';
import type { BenchAccount } from '../api';
import type { Ctx } from '../context';
import { sleep } from '../proc';
import { compareCosts, type PolicyCounts } from './simulate';
import { VARIANTS, type TraceRequest } from './trace';

export interface ReplayResult {
  requests: number;
  spanS: number;
  statusCounts: Record<string, number>;
  distinctJobs: number;
  real: { modelCalls: number; derived: number };
  simulated: PolicyCounts;
  simulatedUrl: number;
  timings: { generateMsP50: number; deriveMsP50: number };
  /** |real - simulated| / simulated, model calls. */
  modelCallError: number;
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

export async function replaySlice(ctx: Ctx, trace: TraceRequest[], accounts: BenchAccount[], seconds: number): Promise<ReplayResult> {
  const { stack, log } = ctx;
  const slice = trace.filter((r) => r.t < seconds * 1000);
  log(`cost: replaying ${slice.length} requests (${seconds} s of the trace) against the service`);
  const statusCounts: Record<string, number> = {};
  const jobIds = new Map<string, string>(); // jobId -> key that can read it
  const start = performance.now();
  await Promise.all(
    slice.map(async (r, i) => {
      const wait = start + r.t - performance.now();
      if (wait > 0) await sleep(wait);
      const v = VARIANTS[r.variant].replay;
      const acc = accounts[r.account];
      const key = acc.keys[i % acc.keys.length];
      const answer = await ctx.api.generate(key, {
        prompt: r.prompt,
        ...(r.style ? { style: r.style } : {}),
        width: v.width,
        height: v.height,
        format: v.format,
      });
      statusCounts[answer.status] = (statusCounts[answer.status] ?? 0) + 1;
      if (answer.status === 202) jobIds.set(answer.body.jobId, key);
    }),
  );
  const spanS = (performance.now() - start) / 1000;
  // Wait for every job to finish, then read what was stored.
  for (const [jobId, key] of jobIds) await ctx.api.waitForJob(key, jobId, 120_000, 100);
  const { rows } = await stack.sql.query<{ originals: string; derived: string }>(
    `SELECT count(*) FILTER (WHERE "sourceImageId" IS NULL) AS originals, count(*) FILTER (WHERE "sourceImageId" IS NOT NULL) AS derived
     FROM "Image" WHERE "accountId" = ANY($1::uuid[])`,
    [accounts.map((a) => a.id)],
  );
  // The service's own timings: accepted → stored, for generations and for derivations.
  const gen: number[] = [];
  const der: number[] = [];
  for (const jobId of jobIds.keys()) {
    const h = (await stack.redis.hgetall(`${stack.redisPrefix}:job:${jobId}`)) as Record<string, string>;
    if (!h.startedAt || !h.completedAt) continue; // cache hits complete without running
    const ms = Date.parse(h.completedAt) - Date.parse(h.createdAt);
    (h.deriveFrom ? der : gen).push(ms);
  }
  const timings = { generateMsP50: median(gen), deriveMsP50: median(der.length ? der : [50]) };
  const sim = compareCosts(slice, { generateMs: timings.generateMsP50, deriveMs: timings.deriveMsP50 });
  const real = { modelCalls: Number(rows[0].originals), derived: Number(rows[0].derived) };
  const result: ReplayResult = {
    requests: slice.length,
    spanS: Math.round(spanS * 10) / 10,
    statusCounts,
    distinctJobs: jobIds.size,
    real,
    simulated: sim.ours,
    simulatedUrl: sim.url.modelCalls,
    timings,
    modelCallError: Math.round((Math.abs(real.modelCalls - sim.ours.modelCalls) / Math.max(1, sim.ours.modelCalls)) * 1000) / 1000,
  };
  log(`cost: replay real ${real.modelCalls} model calls / ${real.derived} derived; simulated ${sim.ours.modelCalls} / ${sim.ours.derived}`);
  return result;
}
