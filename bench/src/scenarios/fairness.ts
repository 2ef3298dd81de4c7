/**
 * `fairness`: one account floods, another sends one job (issue 34's noisy neighbour), on both
 * shapes. Account A (three secret keys) starts at least 1,500 generations through embed resolve,
 * within the documented limits; then account B sends single generations. It reports B's latency
 * idle and under the flood, and the jobs A completes per second alone and while B's run,
 * against the workers' capacity (slots / model latency).
 */
import { join } from 'node:path';
import { firstSseEvent } from '@promptpix/testing';
import { http, operatorApi, publicApi } from '../api';
import type { Ctx } from '../context';
import { sleep } from '../proc';
import { freePort, startEmbeddedServer } from '../stack';

export interface FairnessSettings {
  /** Worker slots in all (processes × WORKER_CONCURRENCY). */
  slots: number;
  modelLatencyMs: number;
  floodJobs: number;
}

export const FAIRNESS_SETTINGS: FairnessSettings = { slots: 4, modelLatencyMs: 400, floodJobs: 1500 };

export interface FairnessShapeResult {
  shape: 'production' | 'embedded';
  setup: string;
  settings: FairnessSettings;
  /** slots × 1000 / model latency: what the workers can finish per second at most. */
  capacityPerS: number;
  floodStarted: number;
  floodEnqueueS: number;
  bIdleMs: number[];
  bUnderFloodMs: number[];
  /** The first position B's event stream reported under the flood. */
  bFirstPosition: number | null;
  /** A's jobs still waiting when B's first job under the flood was sent. */
  aBacklogAtB: number;
  aAlonePerS: number;
  /** Of the slots' time while A was alone, the share spent inside a job (handler time ÷ slot time, from the workers' promptpix_generation_duration_seconds). */
  aAloneSlotsBusy: number;
  aDuringPerS: number;
}

export interface FairnessResult {
  shapes: FairnessShapeResult[];
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)];
};

/** B's bound under the flood: max(3 × idle, idle + 5 s) of B's median idle latency. */
export const bBoundMs = (r: FairnessShapeResult) => Math.max(3 * median(r.bIdleMs), median(r.bIdleMs) + 5000);

/** Jobs waiting or running, from the operator API. */
async function inFlight(base: string, adminToken: string): Promise<number> {
  const answer = await http<{ depth: { waiting: number; active: number; delayed: number } }>(`${base}/admin/api/v1/queue?limit=1`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  if (answer.status !== 200) throw new Error(`queue depth: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  return answer.body.depth.waiting + answer.body.depth.active + answer.body.depth.delayed;
}

/** Seconds the workers have spent inside generation jobs, summed over their /metrics. */
async function secondsInJobs(metricsUrls: string[]): Promise<number> {
  let total = 0;
  for (const url of metricsUrls) {
    const text = await (await fetch(url)).text();
    for (const line of text.split('\n')) if (line.startsWith('promptpix_generation_duration_seconds_sum')) total += Number(line.split(' ').pop());
  }
  return total;
}

/**
 * A's completions per second over `seconds` (how fast the jobs waiting or running go down), and
 * the share of the slots' time spent inside jobs meanwhile (what idle slots would lower).
 */
async function drainRate(
  base: string,
  adminToken: string,
  seconds: number,
  metricsUrls: string[],
  slots: number,
): Promise<{ perS: number; slotsBusy: number }> {
  const [before, busyBefore] = [await inFlight(base, adminToken), await secondsInJobs(metricsUrls)];
  const started = Date.now();
  await sleep(seconds * 1000);
  const [after, busyAfter] = [await inFlight(base, adminToken), await secondsInJobs(metricsUrls)];
  const elapsedS = (Date.now() - started) / 1000;
  return { perS: (before - after) / elapsedS, slotsBusy: (busyAfter - busyBefore) / (slots * elapsedS) };
}

/** The queue position in the first `status` event of a job's stream. */
async function firstPosition(base: string, key: string, jobId: string): Promise<number | null> {
  const event = await firstSseEvent(`${base}/api/v1/job/${jobId}/events`, { authorization: `Bearer ${key}` });
  return (event?.data as { position?: number } | undefined)?.position ?? null;
}

const COLOURS = ['red', 'blue', 'green', 'golden', 'silver', 'violet', 'amber', 'teal', 'white', 'copper'];
const SUBJECTS = [
  'lighthouse',
  'fox',
  'owl',
  'castle',
  'robot',
  'garden',
  'sailboat',
  'teapot',
  'bicycle',
  'mountain',
  'tram',
  'kite',
  'violin',
  'cactus',
  'whale',
  'windmill',
  'lantern',
  'bridge',
  'tortoise',
  'balloon',
];
const SETTINGS = ['at dawn', 'at dusk', 'in fog', 'in snow', 'in spring', 'by the sea', 'in a desert', 'in a forest', 'on a hill', 'under stars'];
let promptCounter = 0;
/** A prompt no earlier one used (words only: numbers can spell terms the safety filter refuses). */
const freshPrompt = (who: 'a' | 'b') => {
  const n = promptCounter++;
  const [colour, subject, setting] = [COLOURS[n % 10], SUBJECTS[Math.floor(n / 10) % 20], SETTINGS[Math.floor(n / 200) % 10]];
  return `${who === 'a' ? 'a busy' : 'a quiet'} ${colour} ${subject} ${setting}, ${SUBJECTS[Math.floor(n / 2000) % 20]} edition`;
};

async function measureShape(
  shape: FairnessShapeResult['shape'],
  setup: string,
  base: string,
  adminToken: string,
  metricsUrls: string[],
  settings: FairnessSettings,
  log: (line: string) => void,
): Promise<FairnessShapeResult> {
  const operator = operatorApi(base, adminToken);
  const api = publicApi(base);
  const a = await operator.benchAccount(`bench-fair-a-${shape}`, 3);
  const b = await operator.benchAccount(`bench-fair-b-${shape}`, 1);
  const single = { width: 256, height: 256, format: 'png' as const };
  const bRun = async (withPosition = false) => {
    const started = Date.now();
    const jobId = await api.startJob(b.keys[0], { prompt: freshPrompt('b'), ...single });
    const position = withPosition ? firstPosition(base, b.keys[0], jobId) : Promise.resolve(null);
    await api.waitForJob(b.keys[0], jobId, 120_000, 20);
    return { ms: Date.now() - started, position: await position };
  };

  await bRun(); // warm-up, not measured
  const bIdleMs: number[] = [];
  for (let i = 0; i < 3; i++) bIdleMs.push((await bRun()).ms);
  log(`fairness (${shape}): B idle ${bIdleMs.join(', ')} ms`);

  // The flood: batches of 50 new prompts through embed resolve, the same number on each key
  // (each key may hold 500 jobs in progress on the enterprise plan), one batch in flight per key.
  const floodStarted = Date.now();
  let started = 0;
  const refused = new Map<string, number>();
  const batchesPerKey = Math.ceil(settings.floodJobs / 50 / a.keys.length);
  await Promise.all(
    a.keys.map(async (key) => {
      for (let batch = 0; batch < batchesPerKey; batch++) {
        const elements = Array.from({ length: 50 }, (_, i) => ({ id: `e${i}`, prompt: freshPrompt('a'), ...single }));
        const answer = await http<{ results: Array<{ status: string; error?: string }> }>(`${base}/api/v1/embed/resolve`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
          json: { elements },
        });
        if (answer.status !== 200) throw new Error(`flood batch: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
        for (const result of answer.body.results) {
          if (result.status === 'generating') started++;
          else refused.set(`${result.status}: ${result.error ?? ''}`, (refused.get(`${result.status}: ${result.error ?? ''}`) ?? 0) + 1);
        }
      }
    }),
  );
  const floodEnqueueS = (Date.now() - floodStarted) / 1000;
  log(`fairness (${shape}): A started ${started} jobs in ${floodEnqueueS.toFixed(1)} s`);
  if (started < settings.floodJobs)
    throw new Error(`the flood started only ${started} of ${settings.floodJobs} jobs (others: ${JSON.stringify(Object.fromEntries(refused))})`);

  await sleep(2000);
  const alone = await drainRate(base, adminToken, 10, metricsUrls, settings.slots);
  log(
    `fairness (${shape}): A alone ${alone.perS.toFixed(2)} jobs/s (slots / model latency: ${(settings.slots * 1000) / settings.modelLatencyMs}/s), slots busy ${(alone.slotsBusy * 100).toFixed(1)}%`,
  );

  const aBacklogAtB = await inFlight(base, adminToken);
  const windowStart = Date.now();
  const bUnderFloodMs: number[] = [];
  let bFirstPosition: number | null = null;
  for (let i = 0; i < 5; i++) {
    const run = await bRun(i === 0);
    bUnderFloodMs.push(run.ms);
    if (i === 0) bFirstPosition = run.position;
  }
  const aDuringPerS = (aBacklogAtB - (await inFlight(base, adminToken))) / ((Date.now() - windowStart) / 1000);
  log(
    `fairness (${shape}): B under the flood ${bUnderFloodMs.join(', ')} ms (first position ${bFirstPosition}), A ${aDuringPerS.toFixed(2)} jobs/s meanwhile, ${aBacklogAtB} of A's jobs waiting or running`,
  );

  return {
    shape,
    setup,
    settings,
    capacityPerS: (settings.slots * 1000) / settings.modelLatencyMs,
    floodStarted: started,
    floodEnqueueS,
    bIdleMs,
    bUnderFloodMs,
    bFirstPosition,
    aBacklogAtB,
    aAlonePerS: alone.perS,
    aAloneSlotsBusy: alone.slotsBusy,
    aDuringPerS,
  };
}

/** Production: the stack's gateway and two workers of half the slots each (its own worker stopped first). */
export async function runFairnessProduction(ctx: Ctx, settings = FAIRNESS_SETTINGS): Promise<FairnessShapeResult> {
  const { stack, log } = ctx;
  await stack.stopWorker();
  const perWorker = settings.slots / 2;
  const metricsPorts = [await freePort(), await freePort()];
  await stack.startWorker({ concurrency: perWorker, modelLatencyMs: settings.modelLatencyMs, metricsPort: metricsPorts[0] });
  await stack.startExtraWorker({ concurrency: perWorker, modelLatencyMs: settings.modelLatencyMs, metricsPort: metricsPorts[1] });
  try {
    const metricsUrls = metricsPorts.map((port) => `http://127.0.0.1:${port}/metrics`);
    return await measureShape(
      'production',
      `1 gateway, 2 workers × ${perWorker} slots (PostgreSQL, Redis, BullMQ)`,
      stack.baseUrl,
      stack.adminToken,
      metricsUrls,
      settings,
      log,
    );
  } finally {
    await stack.stopExtraWorkers();
  }
}

/** Embedded: what `npm start` runs, with WORKER_CONCURRENCY slots in its one process. */
export async function runFairnessEmbedded(ctx: Ctx, settings = FAIRNESS_SETTINGS): Promise<FairnessShapeResult> {
  const { stack, log } = ctx;
  const { child, base } = await startEmbeddedServer({
    name: 'embedded-fairness',
    dataDir: join(stack.dataDir, '..', 'embedded-fairness'),
    adminToken: stack.adminToken,
    logDir: stack.logDir,
    env: { WORKER_CONCURRENCY: String(settings.slots), MODEL_LATENCY_MS: String(settings.modelLatencyMs) },
  });
  try {
    return await measureShape(
      'embedded',
      `\`npm start\`, ${settings.slots} slots in its one process (PGlite, in-process queue)`,
      base,
      stack.adminToken,
      [`${base}/metrics`],
      settings,
      log,
    );
  } finally {
    await child.stop(10_000);
  }
}
