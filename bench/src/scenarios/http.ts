/**
 * The gateway's hot endpoints under closed-loop load, each next to two floors measured in the
 * same run with the same connection count and a response body of the same size: an Express 5
 * hello-world and a bare node:http server doing one Redis GET. Plus the two fixed-rate latency
 * targets (poll at 1,000 req/s, generate at 300 req/s).
 *
 * The worker is stopped during this phase: the gateway is measured alone (in production the
 * workers run elsewhere), and jobs enqueued by the generate scenario are deleted afterwards.
 */
import { FLOOR_SIZE_HEADER } from '../floors/body';
import type { BenchAccount } from '../api';
import { countWire, startCounting, type WireCost } from '../count';
import type { DbPathInputs } from './db-paths';
import type { Ctx } from '../context';
import { runAutocannon, runPaced, type LoadTarget } from '../load';
import { measure, type Measurement } from '../measure';
import { freePort } from '../stack';
import { memorySplit, type MemorySplit } from '../memory';
import { logLevels, logTail, readMemory, sleep, startChild, waitFor, type Child } from '../proc';
import { withEventLoopDelay, type EventLoopDelay } from '../event-loop';
import { EMBED_PROMPTS, embedBodyOf } from './embedded';

export interface FloorPair {
  bodyBytes: number;
  express: Measurement;
  http: Measurement;
}

export interface ScenarioResult {
  id: string;
  title: string;
  request: string;
  sample: { status: number; bodyBytes: number; rateLimit?: { limit: string | null; remaining: string | null } };
  measurement: Measurement;
  floors: FloorPair;
  ratioExpress: number;
  ratioHttp: number;
  /** Same ratios from server CPU per request (floor CPU/req ÷ scenario CPU/req): less disturbed by other load on the machine. */
  cpuRatioExpress?: number;
  cpuRatioHttp?: number;
  /** Exact PostgreSQL / Redis round trips per request (counting gateway, one request at a time). */
  wire?: WireCost;
  /** The same with the connection count's requests in flight (generate: what group commit shares under load). */
  wireUnderLoad?: WireCost;
  /** Minimum ratio of ok req/s to the Express floor, when the scenario has a target. */
  targetRatio?: number;
  elementsPerRequest?: number;
  note?: string;
  /** The gateway's event-loop delay over the measured run. */
  eventLoop?: EventLoopDelay;
}

export interface FixedRateResult {
  id: string;
  title: string;
  rate: number;
  p99TargetMs: number;
  paced: Measurement;
  autocannonRate: Measurement;
  /** The Express floor under the same paced load. */
  expressFloorPaced?: Measurement;
}

export interface HttpPhaseResult {
  connections: number;
  scenarios: ScenarioResult[];
  fixedRate: FixedRateResult[];
  gateway: { peakRssUnderPollMb?: number; vmHwmAfterPhaseMb?: number; warnLines: Record<string, number>; memoryAfterPoll?: MemorySplit };
  setup: Record<string, unknown>;
  /** What the db-paths phase reads: the scenarios' own data. */
  dbInputs: DbPathInputs;
  /** The scenarios' targets, for the profile phase. */
  targets: Array<{ id: string; target: LoadTarget }>;
}

const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

async function sample(target: LoadTarget) {
  const shape = target.vary ? { ...target.request, ...target.vary(0), headers: { ...target.request.headers, ...target.vary(0).headers } } : target.request;
  const res = await fetch(`${target.base}${shape.path}`, { method: shape.method, headers: shape.headers, body: shape.body, redirect: 'manual' });
  const text = await res.text();
  return {
    status: res.status,
    bodyBytes: Buffer.byteLength(text),
    text,
    rateLimit: res.headers.has('x-ratelimit-limit')
      ? { limit: res.headers.get('x-ratelimit-limit'), remaining: res.headers.get('x-ratelimit-remaining') }
      : undefined,
  };
}

async function startFloor(ctx: Ctx, kind: 'express' | 'http'): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  const child = startChild({
    name: `floor-${kind}`,
    script: `bench/src/floors/${kind}-floor.ts`,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port), REDIS_URL: 'redis://127.0.0.1:6379', FLOOR_PREFIX: `${ctx.stack.redisPrefix}:` },
    logDir: ctx.stack.logDir,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    `${kind} floor`,
    async () => {
      if (!child.isRunning()) throw new Error(logTail(child));
      return (await fetch(base)).ok ? true : undefined;
    },
    30_000,
  );
  return { child, base };
}

export async function runHttpPhase(ctx: Ctx): Promise<HttpPhaseResult> {
  const { stack, operator, api, config, log } = ctx;
  const base = stack.baseUrl;
  const c = config.connections;

  // --- data, made through the API with the worker running -------------------------------------
  log('http: creating accounts and keys');
  const [pollAcc, permAcc, renderAcc, embedAcc, genAcc] = await Promise.all([
    operator.benchAccount('bench-poll', 1),
    operator.benchAccount('bench-permalink', 1),
    // Each key may make 600 requests a minute (sliding window; enterprise plan): render runs at
    // 5–12k req/s over its warm-up, measured run and profile (up to about 150k requests in a
    // minute), so it needs a few hundred keys to measure the route and not the rate limiter (96
    // answered 17k of its requests 429). Not many more: each key is one more key-cache entry
    // and one more database read per key-cache lifetime, which a real page's one key never costs.
    operator.benchAccount('bench-render', 400),
    operator.benchAccount('bench-embed', 200),
    operator.benchAccount('bench-generate', 96),
  ]);
  log('http: generating the images the scenarios read');
  const pollJob = (await api.generateAll(pollAcc.keys[0], [{ prompt: 'bench poll target: a small red boat', width: 256, height: 256, format: 'png' }]))[0];
  const renderPrompt = 'a lighthouse on a cliff at sunset';
  const renderJob = (await api.generateAll(renderAcc.keys[0], [{ prompt: renderPrompt }]))[0]; // default 1024x1024 webp, as render asks
  const permImages = await api.generateAll(
    permAcc.keys[0],
    ['a quiet harbour at dawn', 'a quiet harbour at noon', 'a quiet harbour at dusk'].map((prompt) => ({
      prompt,
      width: 256,
      height: 256,
      format: 'png' as const,
    })),
  );
  await operator.createPermalink(permAcc.handle, 'hero', [permImages[0].imageId!]);
  await operator.createPermalink(
    permAcc.handle,
    'carousel',
    permImages.map((j) => j.imageId!),
  );
  const embedPrompts = EMBED_PROMPTS;
  await api.generateAll(
    embedAcc.keys[0],
    embedPrompts.map((prompt) => ({ prompt, width: 256, height: 256, format: 'png' as const })),
  );
  log('http: data ready; stopping the worker so the gateway is measured alone');
  await stack.stopWorker();

  const bearer = (acc: BenchAccount) => (i: number) => ({ headers: { authorization: `Bearer ${acc.keys[i % acc.keys.length]}` } });
  const poll: LoadTarget = { base, request: { method: 'GET', path: `/api/v1/job/${pollJob.jobId}`, headers: { authorization: `Bearer ${pollAcc.keys[0]}` } } };
  const renderPath = (key: string) => `/api/v1/render?prompt=${encodeURIComponent(renderPrompt)}&key=${key}`;
  const render: LoadTarget = {
    base,
    request: { method: 'GET', path: renderPath(renderAcc.keys[0]) },
    vary: (i) => ({ path: renderPath(renderAcc.keys[i % renderAcc.keys.length]) }),
  };
  const renderOneKey: LoadTarget = { base, request: { method: 'GET', path: renderPath(renderAcc.keys[0]) } };
  const embedBody = embedBodyOf(embedPrompts);
  const embed: LoadTarget = {
    base,
    request: { method: 'POST', path: '/api/v1/embed/resolve', headers: { 'content-type': 'application/json' }, body: embedBody },
    vary: bearer(embedAcc),
  };
  const runTag = Date.now().toString(36);
  // Every request of every run (warm-up, measured, fixed-rate, counting, profile) gets a prompt
  // never seen before: the counter lives here, not in the load generator.
  let fresh = 0;
  const generate: LoadTarget = {
    base,
    request: { method: 'POST', path: '/api/v1/generate', headers: { 'content-type': 'application/json' } },
    vary: (i) => ({
      headers: { authorization: `Bearer ${genAcc.keys[i % genAcc.keys.length]}` },
      body: JSON.stringify({ prompt: `fresh ${runTag} ${fresh++}: a paper boat on a pond`, width: 256, height: 256, format: 'png' }),
    }),
  };

  const allScenarios: Array<{
    id: string;
    title: string;
    request: string;
    target: LoadTarget;
    targetRatio?: number;
    elementsPerRequest?: number;
    durationS?: number;
    note?: string;
  }> = [
    { id: 'poll', title: 'Poll a completed job', request: 'GET /api/v1/job/:id (Bearer)', target: poll, targetRatio: 0.6 },
    {
      id: 'permalink',
      title: 'Permalink redirect (1 image)',
      request: 'GET /api/img/{handle}/hero',
      target: { base, request: { method: 'GET', path: `/api/img/${permAcc.handle}/hero` } },
      targetRatio: 0.6,
    },
    {
      id: 'permalink-rotating',
      title: 'Permalink redirect (3 images, round robin)',
      request: 'GET /api/img/{handle}/carousel',
      target: { base, request: { method: 'GET', path: `/api/img/${permAcc.handle}/carousel` } },
      note: 'no target; one UPDATE of the rotation per request',
    },
    { id: 'render', title: 'Render redirect, existing image', request: 'GET /api/v1/render?prompt=…&key=… (400 keys)', target: render, targetRatio: 0.5 },
    {
      id: 'render-one-key',
      title: 'Render, all traffic on one key',
      request: 'GET /api/v1/render?prompt=…&key=… (1 key)',
      target: renderOneKey,
      durationS: Math.min(5, config.durationS),
      note: 'no target; shows the per-key rate limit (enterprise 600/min) answering 429',
    },
    {
      id: 'embed',
      title: 'Embed resolve, 50 cached elements',
      request: 'POST /api/v1/embed/resolve (50 elements, 200 keys)',
      target: embed,
      targetRatio: 0.2,
      elementsPerRequest: 50,
    },
    { id: 'generate', title: 'Enqueue a fresh generation', request: 'POST /api/v1/generate, distinct prompts (96 keys)', target: generate, targetRatio: 0.3 },
  ];
  const scenarios = allScenarios.filter((s) => !config.scenarios || config.scenarios.has(s.id));

  // --- floors ----------------------------------------------------------------------------------
  const expressFloor = await startFloor(ctx, 'express');
  const httpFloor = await startFloor(ctx, 'http');
  const floors: FloorPair[] = [];
  const floorFor = async (bodyBytes: number, target: LoadTarget): Promise<FloorPair> => {
    const near = floors.find((f) => Math.abs(f.bodyBytes - bodyBytes) <= Math.max(16, 0.15 * bodyBytes));
    if (near) return near;
    const onFloor = (floorBase: string): LoadTarget => ({
      base: floorBase,
      request: { ...target.request, headers: { ...target.request.headers, [FLOOR_SIZE_HEADER]: String(bodyBytes) } },
      vary: target.vary,
    });
    const run = async (floor: { child: Child; base: string }) => {
      await runAutocannon(onFloor(floor.base), { connections: c, durationS: 1 }).done;
      return measure(() => runAutocannon(onFloor(floor.base), { connections: c, durationS: config.floorDurationS }), { serverPid: floor.child.pid });
    };
    log(`http: floors for a ${bodyBytes}-byte body`);
    const pair = { bodyBytes, express: await run(expressFloor), http: await run(httpFloor) };
    log(`http:   express ${pair.express.load.okRps} req/s, node:http+redis ${pair.http.load.okRps} req/s`);
    floors.push(pair);
    return pair;
  };

  const results: ScenarioResult[] = [];
  const fixedRate: FixedRateResult[] = [];
  let peakRssUnderPollMb: number | undefined;
  let gatewayMemory: MemorySplit | undefined;
  const probes = () => ({ serverPid: stack.gateway!.pid });
  const cpuRatio = (floor: Measurement, m: Measurement) =>
    floor.serverCpuUsPerReq && m.serverCpuUsPerReq ? round(floor.serverCpuUsPerReq / m.serverCpuUsPerReq, 3) : undefined;
  try {
    for (const s of scenarios) {
      const first = await sample(s.target);
      if (first.status >= 400 && s.id !== 'render-one-key') throw new Error(`${s.id}: sample request answered ${first.status}: ${first.text.slice(0, 300)}`);
      const pair = await floorFor(first.bodyBytes, s.target);
      log(`http: ${s.id} (sample ${first.status}, ${first.bodyBytes} B)`);
      await runAutocannon(s.target, { connections: c, durationS: config.warmupS }).done;
      const { result: m, eventLoop } = await withEventLoopDelay(base, () =>
        measure(() => runAutocannon(s.target, { connections: c, durationS: s.durationS ?? config.durationS }), probes()),
      );
      if (s.id === 'poll') {
        peakRssUnderPollMb = m.peakRssMb;
        gatewayMemory = await memorySplit(base, stack.gateway!.pid);
      }
      const result: ScenarioResult = {
        id: s.id,
        title: s.title,
        request: s.request,
        sample: { status: first.status, bodyBytes: first.bodyBytes, rateLimit: first.rateLimit },
        measurement: m,
        floors: pair,
        ratioExpress: round(m.load.okRps / pair.express.load.okRps, 3),
        ratioHttp: round(m.load.okRps / pair.http.load.okRps, 3),
        cpuRatioExpress: cpuRatio(pair.express, m),
        cpuRatioHttp: cpuRatio(pair.http, m),
        targetRatio: s.targetRatio,
        elementsPerRequest: s.elementsPerRequest,
        note: s.note,
        eventLoop,
      };
      results.push(result);
      log(
        `http:   ${m.load.okRps} ok req/s (${result.ratioExpress}x Express, ${result.ratioHttp}x node:http), p50 ${m.load.latencyMs.p50} ms, p99 ${m.load.latencyMs.p99} ms, errors ${m.load.errors}, 429 ${m.load.rateLimited}; ` +
          `cpu ${m.serverCpuUsPerReq} us/req (${result.cpuRatioExpress}x Express by CPU), load avg ${m.loadAvg1}`,
      );

      if (s.id === 'poll' || s.id === 'generate') {
        const rate = s.id === 'poll' ? 1000 : 300;
        const p99TargetMs = s.id === 'poll' ? 10 : 30;
        log(`http: ${s.id} at a fixed ${rate} req/s (paced, then autocannon overallRate)`);
        const paced = await measure(() => runPaced(s.target, { rate, durationS: config.durationS }), probes());
        const autocannonRate = await measure(() => runAutocannon(s.target, { connections: c, durationS: config.durationS, rate }), probes());
        // The same paced load on the Express floor: the latency tail this machine adds by itself.
        const floorTarget: LoadTarget = {
          base: expressFloor.base,
          request: { ...s.target.request, headers: { ...s.target.request.headers, [FLOOR_SIZE_HEADER]: String(pair.bodyBytes) } },
          vary: s.target.vary,
        };
        const expressFloorPaced = await measure(() => runPaced(floorTarget, { rate, durationS: Math.min(6, config.durationS) }), {
          serverPid: expressFloor.child.pid,
        });
        fixedRate.push({ id: s.id, title: `${s.title} at ${rate} req/s`, rate, p99TargetMs, paced, autocannonRate, expressFloorPaced });
        log(
          `http:   paced p50 ${paced.load.latencyMs.p50} p99 ${paced.load.latencyMs.p99} ms; autocannon-rate p50 ${autocannonRate.load.latencyMs.p50} p99 ${autocannonRate.load.latencyMs.p99} ms; Express floor paced p99 ${expressFloorPaced.load.latencyMs.p99} ms`,
        );
      }
      if (s.id === 'generate') {
        // The enqueued jobs would keep a worker busy for minutes: drop the queue (worker is stopped),
        // once the requests still in flight when the load generator stopped have finished.
        await sleep(1500);
        const deleted = await stack.deleteRedisKeys(`${stack.redisPrefix}:generation:*`);
        log(`http: dropped the generate scenario's queue (${deleted} keys)`);
      }
      await sleep(500);
    }
  } finally {
    await expressFloor.child.stop();
    await httpFloor.child.stop();
  }

  // --- exact round trips per request, through a second gateway behind counting proxies --------
  log('http: counting PostgreSQL and Redis round trips per request (counting gateway)');
  ctx.counting ??= await startCounting(ctx);
  for (const result of results) {
    const s = scenarios.find((x) => x.id === result.id)!;
    if (s.id === 'render-one-key') continue;
    // The warm-up touches every key once, so the gateway's key cache is as warm as under load.
    const keys = { render: renderAcc.keys.length, embed: embedAcc.keys.length, generate: genAcc.keys.length }[s.id] ?? 1;
    result.wire = await countWire(ctx.counting, s.target, { requests: s.id === 'embed' ? 40 : 100, offset: 50_000_000, warmup: keys + 10 });
    log(
      `http:   ${s.id}: pg ${result.wire.pgRoundTripsPerReq} round trips/req, redis ${result.wire.redisCommandsPerReq} commands/req (${result.wire.redisWritesPerReq} writes)`,
    );
    if (s.id === 'generate') {
      result.wireUnderLoad = await countWire(ctx.counting, s.target, { requests: 500, offset: 60_000_000, warmup: 0, inFlight: c });
      log(
        `http:   ${s.id}, ${c} in flight: pg ${result.wireUnderLoad.pgRoundTripsPerReq} round trips/req, redis ${result.wireUnderLoad.redisCommandsPerReq} commands/req (${result.wireUnderLoad.redisWritesPerReq} writes)`,
      );
    }
  }
  await sleep(1500);
  await stack.deleteRedisKeys(`${stack.redisPrefix}:generation:*`);

  return {
    connections: c,
    scenarios: results,
    fixedRate,
    gateway: {
      peakRssUnderPollMb,
      vmHwmAfterPhaseMb: readMemory(stack.gateway!.pid)?.hwmMb,
      warnLines: logLevels(stack.gateway!),
      memoryAfterPoll: gatewayMemory,
    },
    setup: { pollJob: pollJob.jobId, renderImage: renderJob.imageId, permalinkImages: permImages.length, embedElements: embedPrompts.length },
    dbInputs: {
      permalink: { handle: permAcc.handle, name: 'hero' },
      embed: { accountId: embedAcc.id, prompts: embedPrompts },
      render: { accountId: renderAcc.id, prompt: renderPrompt },
      key: renderAcc.keys[0],
    },
    targets: scenarios.filter((s) => ['poll', 'permalink', 'render', 'embed', 'generate'].includes(s.id)).map((s) => ({ id: s.id, target: s.target })),
  };
}
