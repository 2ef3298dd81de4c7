/**
 * `npm run bench`: the production shape (gateway and worker as separate processes over a fresh
 * PostgreSQL database, a Redis prefix of our own and local storage), loaded scenario by scenario
 * next to Express and node:http floors; the job pipeline, the worker, instant mode, and the cost
 * of a synthetic trace. Writes bench/results/<date>.json and .md and prints the markdown.
 * Everything it creates is removed at the end, also on failure or Ctrl-C.
 *
 * Knobs (environment): BENCH_DURATION_S (10), BENCH_FLOOR_DURATION_S (8), BENCH_WARMUP_S (2),
 * BENCH_CONNECTIONS (50), BENCH_ONLY=http,profile,db,memory,embedded,images,pipeline,worker,cost,instant,meaning,subjects,fairness, BENCH_PROFILE=0,
 * BENCH_REPLAY_S (20).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { operatorApi, publicApi, type BenchAccount } from './api';
import { loadBenchConfig, wants, type Ctx } from './context';
import { replaySlice } from './cost/replay';
import { compareCosts } from './cost/simulate';
import { DEFAULT_TRACE, generateTrace, type TraceParams } from './cost/trace';
import { ROOT, logLevels, type Child } from './proc';
import { evaluateTargets, toMarkdown, type Results } from './report';
import { runHttpPhase } from './scenarios/http';
import { runInstantPhase } from './scenarios/instant';
import { runMeaningPhase } from './scenarios/meaning';
import { runSubjectsPhase } from './scenarios/subjects';
import { runOverhead, runThroughput, runWorkerMemory } from './scenarios/pipeline';
import { runProfilePhase } from './scenarios/profile';
import { runDbPaths } from './scenarios/db-paths';
import { runEmbeddedMemory } from './scenarios/embedded-memory';
import { runEmbeddedPhase } from './scenarios/embedded';
import { runEditOverhead, runUploadMemory } from './scenarios/images-in';
import { pollTarget, runGatewayMemory } from './scenarios/gateway-memory';
import { runFairnessEmbedded, runFairnessProduction } from './scenarios/fairness';
import { createStack, ensureBuilt, type Stack } from './stack';

const RESULTS_DIR = join(ROOT, 'bench', 'results');

function git(): { commit: string; modifiedFiles: number } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const status = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' });
    return { commit, modifiedFiles: status.split('\n').filter(Boolean).length };
  } catch {
    return { commit: 'unknown', modifiedFiles: -1 };
  }
}

/** Generation time the simulation assumes: the replay's model latency plus what the pipeline adds. */
const SIM_GENERATE_MS = 2050;
const SIM_DERIVE_MS = 80;

function costSimulation(results: Results) {
  const trace = generateTrace(DEFAULT_TRACE);
  const params = { generateMs: SIM_GENERATE_MS, deriveMs: SIM_DERIVE_MS };
  const comparison = compareCosts(trace, params);
  const variations: Array<[string, Partial<TraceParams>]> = [
    ['no bursts', { burstP: 0 }],
    ['no whitespace variants', { whitespaceP: 0 }],
    ['every prompt always in its usual size/format', { homeVariantP: 1 }],
    ['usual size/format only 30% of the time', { homeVariantP: 0.3 }],
    ['flatter popularity (Zipf s=0.8)', { zipfS: 0.8 }],
    ['larger vocabulary (10,000 prompts per account)', { vocabulary: 10_000 }],
    ['twice the bursts (4% of arrivals)', { burstP: 0.04 }],
  ];
  const sensitivity = variations.map(([change, p]) => {
    const c = compareCosts(generateTrace({ ...DEFAULT_TRACE, ...p }), params);
    return {
      change,
      url: c.url.modelCalls,
      urlCollapsed: c.urlCollapsed.modelCalls,
      ours: c.ours.modelCalls,
      savingVsUrl: c.savingVsUrl,
      savingVsUrlCollapsed: c.savingVsUrlCollapsed,
    };
  });
  results.cost = {
    trace: {
      ...DEFAULT_TRACE,
      spanS: Math.round(trace[trace.length - 1].t / 100) / 10,
      distinctPromptsPerAccount: DEFAULT_TRACE.accountWeights.map(
        (_, a) => new Set(trace.filter((r) => r.account === a).map((r) => r.prompt.trim().replace(/\s+/g, ' '))).size,
      ),
    },
    comparison,
    sensitivity,
  };
  return trace;
}

async function main() {
  const config = loadBenchConfig();
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const stamp = startedAt.slice(0, 16).replace(':', '');
  const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);
  const results: Results = {
    meta: {
      startedAt,
      node: process.version,
      cpus: cpus().length,
      loadAvgAtStart: loadavg(),
      git: git(),
      config: { ...config, only: config.only ? [...config.only] : 'all' },
    },
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  /** Keeps a worker's log line counts by level, under its name. */
  const keepLogLevels = (worker: Child) => {
    for (const [k, v] of Object.entries(logLevels(worker))) {
      results.workerWarnLines ??= {};
      results.workerWarnLines[`${worker.name} ${k}`] = v;
    }
  };

  let stack: Stack | undefined;
  let ctx: Ctx | undefined;
  let finishing: Promise<void> | undefined;
  /** Cleans up, then writes and prints whatever was measured. Runs once, however the run ends. */
  const finish = () =>
    (finishing ??= (async () => {
      log('cleaning up');
      results.meta.cleanup = stack ? await stack.cleanup() : ['nothing to clean'];
      if (ctx?.counting) {
        await ctx.counting.pg.close();
        await ctx.counting.redis.close();
        results.meta.cleanup.push('counting proxies closed');
      }
      results.meta.finishedAt = new Date().toISOString();
      results.meta.seconds = Math.round((Date.now() - started) / 1000);
      results.meta.loadAvgAtEnd = loadavg();
      results.targets = evaluateTargets(results);
      const md = toMarkdown(results);
      writeFileSync(join(RESULTS_DIR, `${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
      writeFileSync(join(RESULTS_DIR, `${stamp}.md`), `${md}\n`);
      console.log(`\n${md}`);
      log(`wrote bench/results/${stamp}.json and .md`);
    })());
  const abort = (why: string, error?: unknown) => {
    results.meta.error ??= `${why}${error ? `: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}` : ''}`;
    log(`ABORTED: ${results.meta.error}`);
    void finish().finally(() => process.exit(1));
  };
  process.once('SIGINT', () => abort('SIGINT'));
  process.once('SIGTERM', () => abort('SIGTERM'));
  process.on('uncaughtException', (error) => abort('uncaught exception', error));
  process.on('unhandledRejection', (error) => abort('unhandled rejection', error));

  try {
    const trace = wants({ config } as Ctx, 'cost') ? costSimulation(results) : [];
    if (results.cost)
      log(
        `cost: simulated ${trace.length} requests: ours ${results.cost.comparison.ours.modelCalls} model calls, URL cache ${results.cost.comparison.url.modelCalls} (${(results.cost.comparison.savingVsUrl * 100).toFixed(1)}% fewer)`,
      );

    // Its own databases (PGlite and a fresh PostgreSQL one), before the stack's processes start.
    if (wants({ config } as Ctx, 'meaning')) results.meaning = await runMeaningPhase(log);
    // The built-in model in this process: does it draw what the prompt names, and how fast (issue #33).
    if (wants({ config } as Ctx, 'subjects')) results.subjects = await runSubjectsPhase(log);

    // The services run as built (dist/), like `npm start` and the images.
    await ensureBuilt(log);
    stack = await createStack(log);
    results.meta.stack = { database: stack.dbName, redisPrefix: stack.redisPrefix };
    await stack.startGateway();
    await stack.startWorker({ concurrency: 4, modelLatencyMs: 0 });
    log(`gateway pid ${stack.gateway!.pid} on ${stack.baseUrl}, worker pid ${stack.worker!.pid}`);
    const c: Ctx = { config, stack, operator: operatorApi(stack.baseUrl, stack.adminToken), api: publicApi(stack.baseUrl), log };
    ctx = c;

    if (wants(ctx, 'http')) {
      const { targets, dbInputs, ...http } = await runHttpPhase(ctx);
      results.http = http;
      if (wants(ctx, 'profile') && config.profile) results.profile = await runProfilePhase(ctx, targets, RESULTS_DIR, stamp);
      if (wants(ctx, 'db')) results.dbPaths = await runDbPaths(ctx, dbInputs);
      if (wants(ctx, 'memory')) results.gatewayMemory = await runGatewayMemory(ctx, targets.find((t) => t.id === 'poll')!.target);
    } else if (wants(ctx, 'memory')) {
      results.gatewayMemory = await runGatewayMemory(ctx, await pollTarget(ctx));
    }
    if (wants(ctx, 'embedded')) {
      results.embeddedMemory = await runEmbeddedMemory(ctx);
      const production = results.http?.scenarios.find((s) => s.id === 'embed')?.measurement.load.latencyMs.p99;
      results.embedded = await runEmbeddedPhase(ctx, production);
    }

    if (wants(ctx, 'images')) {
      results.imagesIn = { edits: await runEditOverhead(ctx) };
      results.imagesIn.uploads = await runUploadMemory(ctx);
    }

    let pipelineAcc: BenchAccount | undefined;
    const ensureWorker = async (concurrency: number, modelLatencyMs: number) => {
      const name = `worker-c${concurrency}-l${modelLatencyMs}`;
      if (stack!.worker?.isRunning() && stack!.worker.name === name) return;
      if (stack!.worker) keepLogLevels(stack!.worker);
      await stack!.stopWorker();
      await stack!.startWorker({ concurrency, modelLatencyMs });
    };
    if (wants(ctx, 'pipeline') || wants(ctx, 'worker') || wants(ctx, 'cost')) pipelineAcc = await ctx.operator.benchAccount('bench-pipeline', 8);

    if (wants(ctx, 'pipeline')) {
      await ensureWorker(4, 0);
      results.pipeline = await runOverhead(ctx, pipelineAcc!);
    }
    if (wants(ctx, 'worker')) {
      await ensureWorker(8, 0);
      results.workerMemory = await runWorkerMemory(ctx, pipelineAcc!);
      await ensureWorker(32, 2000);
      results.throughput = await runThroughput(ctx, pipelineAcc!);
    }
    if (wants(ctx, 'cost')) {
      await ensureWorker(32, 2000);
      const accounts = await Promise.all(DEFAULT_TRACE.accountWeights.map((_, a) => c.operator.benchAccount(`bench-trace-${a}`, 4)));
      results.cost!.replay = await replaySlice(ctx, trace, accounts, config.replaySeconds);
    }
    if (wants(ctx, 'instant')) {
      // The worker's library indexer embeds the rows the phase adds; the phase waits for it.
      await ensureWorker(4, 0);
      const instantAcc = await ctx.operator.benchAccount('bench-instant', 32);
      const library = await ctx.operator.createAccount('bench-library');
      results.instant = await runInstantPhase(ctx, instantAcc, library.id);
    }
    // Last: it leaves a flood of queued jobs behind on the production stack.
    if (wants(ctx, 'fairness')) {
      results.fairness = { shapes: [await runFairnessEmbedded(ctx)] };
      if (stack.worker) keepLogLevels(stack.worker);
      results.fairness.shapes.unshift(await runFairnessProduction(ctx));
    }
    if (stack.worker) {
      keepLogLevels(stack.worker);
      await stack.stopWorker();
    }
  } catch (error) {
    results.meta.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`FAILED: ${results.meta.error}`);
    process.exitCode = 1;
  } finally {
    await finish();
  }
  // Nothing of ours is left running; don't let a stray handle keep the process alive.
  process.exit(process.exitCode ?? 0);
}

void main();
