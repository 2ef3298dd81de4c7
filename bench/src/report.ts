/** The results as JSON and as a markdown report (tables), plus the target verdicts. */
import type { CostComparison } from './cost/simulate';
import type { ReplayResult } from './cost/replay';
import type { TraceParams } from './cost/trace';
import type { HttpPhaseResult } from './scenarios/http';
import type { InstantResult } from './scenarios/instant';
import type { MeaningResult } from './scenarios/meaning';
import type { SubjectsResult } from './scenarios/subjects';
import type { OverheadResult, ThroughputResult, WorkerMemoryResult } from './scenarios/pipeline';
import type { ProfilePhaseResult } from './scenarios/profile';
import type { DbPathRow } from './scenarios/db-paths';
import type { EmbeddedMemoryResult } from './scenarios/embedded-memory';
import type { GatewayMemoryRow } from './scenarios/gateway-memory';
import { splitText } from './memory';
import { embeddedMarkdown, type EmbeddedPhaseResult } from './scenarios/embedded';
import { imagesInMarkdown, type ImagesInResult } from './scenarios/images-in';
import { bBoundMs, median, type FairnessResult } from './scenarios/fairness';

export interface Results {
  meta: {
    startedAt: string;
    finishedAt?: string;
    seconds?: number;
    node: string;
    cpus: number;
    loadAvgAtStart: number[];
    loadAvgAtEnd?: number[];
    git: { commit: string; modifiedFiles: number };
    config: Record<string, unknown>;
    stack?: { database: string; redisPrefix: string };
    error?: string;
    cleanup?: string[];
  };
  http?: Omit<HttpPhaseResult, 'targets' | 'dbInputs'>;
  dbPaths?: DbPathRow[];
  gatewayMemory?: GatewayMemoryRow[];
  embeddedMemory?: EmbeddedMemoryResult;
  profile?: ProfilePhaseResult;
  pipeline?: OverheadResult;
  throughput?: ThroughputResult;
  workerMemory?: WorkerMemoryResult;
  workerWarnLines?: Record<string, number>;
  instant?: InstantResult;
  embedded?: EmbeddedPhaseResult;
  imagesIn?: ImagesInResult;
  meaning?: MeaningResult;
  subjects?: SubjectsResult;
  fairness?: FairnessResult;
  cost?: {
    trace: TraceParams & { spanS: number; distinctPromptsPerAccount: number[] };
    comparison: CostComparison;
    sensitivity: Array<{ change: string; url: number; urlCollapsed: number; ours: number; savingVsUrl: number; savingVsUrlCollapsed: number }>;
    replay?: ReplayResult;
  };
  targets?: Target[];
}

export interface Target {
  name: string;
  target: string;
  measured: string;
  met: boolean | null;
  /** The same target measured on the embedded shape (`npm start`), where the bench measures it there. */
  embedded?: { measured: string; met: boolean | null };
}

const f = (v: number | undefined | null, digits = 1): string =>
  v === undefined || v === null || !Number.isFinite(v) ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
const yes = (met: boolean | null) => (met === null ? 'n/a' : met ? '**met**' : '**missed**');

export function evaluateTargets(r: Results): Target[] {
  const t: Target[] = [];
  const s = (id: string) => r.http?.scenarios.find((x) => x.id === id);
  for (const [id, name] of [
    ['poll', 'Poll completed job'],
    ['permalink', 'Permalink redirect'],
    ['render', 'Render redirect (existing)'],
    ['embed', 'Embed resolve, 50 cached'],
    ['generate', 'Enqueue fresh generation'],
  ] as const) {
    const x = s(id);
    if (!x || x.targetRatio === undefined) continue;
    t.push({
      name: `${name}: req/s vs Express floor`,
      target: `≥ ${x.targetRatio}×`,
      measured: `${f(x.ratioExpress, 2)}× (${f(x.measurement.load.okRps, 0)} vs ${f(x.floors.express.load.okRps, 0)} req/s)`,
      met: x.ratioExpress >= x.targetRatio,
    });
    if (id === 'embed') {
      const elements = x.measurement.load.okRps * (x.elementsPerRequest ?? 1);
      const ratio = elements / x.floors.express.load.okRps;
      t.push({
        name: `${name}: elements/s vs Express floor req/s`,
        target: '≥ 10×',
        measured: `${f(ratio, 2)}× (${f(elements, 0)} elements/s)`,
        met: ratio >= 10,
      });
    }
  }
  for (const fr of r.http?.fixedRate ?? []) {
    const p99 = fr.paced.load.latencyMs.p99;
    t.push({
      name: `${fr.title}: p99 (paced)`,
      target: `≤ ${fr.p99TargetMs} ms`,
      measured: `${f(p99, 2)} ms (autocannon overallRate: ${f(fr.autocannonRate.load.latencyMs.p99, 1)} ms)`,
      met: p99 <= fr.p99TargetMs && fr.paced.load.errors === 0,
    });
  }
  if (r.pipeline)
    t.push({
      name: 'Pipeline overhead at light load, p50',
      target: '≤ 30 ms',
      measured: `${f(r.pipeline.overheadMs.p50, 1)} ms (total ${f(r.pipeline.totalMs.p50, 1)} − model+encode ${f(r.pipeline.modelEncodeMs.p50, 1)})`,
      met: r.pipeline.overheadMs.p50 <= 30,
    });
  if (r.throughput) {
    const need = 0.9 * r.throughput.idealJobsPerS;
    t.push({
      name: 'Worker throughput (c=32, 2 s model, 1 process)',
      target: `≥ ${f(need, 1)} jobs/s (90% of ${r.throughput.idealJobsPerS})`,
      measured: `${f(r.throughput.sustainedJobsPerS, 2)} jobs/s`,
      met: r.throughput.sustainedJobsPerS >= need,
    });
  }
  if (r.subjects) {
    t.push({
      name: 'Built-in model: main subject drawn (revisedPrompt)',
      target: '≥ 80%',
      measured: `${f(r.subjects.share * 100, 1)}% of ${r.subjects.cases} prompts`,
      met: r.subjects.share >= 0.8,
    });
    t.push({
      name: 'Built-in model: one 1024² image, subjects and style',
      target: '< 300 ms of one core (CPU p50)',
      measured: `CPU ${f(r.subjects.render1024.cpuP50Ms, 0)} ms p50, ${f(r.subjects.render1024.cpuP95Ms, 0)} ms p95; wall ${f(r.subjects.render1024.p50Ms, 0)} ms p50`,
      met: r.subjects.render1024.cpuP50Ms < 300,
    });
  }
  if (r.meaning) {
    const wordnet = r.meaning.evaluation.find((e) => e.adapter.startsWith('wordnet'));
    if (wordnet) {
      const heldOut = wordnet.bySplit['held-out'];
      t.push({
        name: 'Instant by meaning, embedded default: recall@1 (all; held-out)',
        target: '≥ 0.8 both',
        measured: `${f(wordnet.recallAt1, 3)} (${wordnet.paraphrases} paraphrases); ${heldOut ? `${f(heldOut.recallAt1, 3)} (${heldOut.paraphrases} held out)` : 'no held-out split'}`,
        met: wordnet.recallAt1 >= 0.8 && (heldOut?.recallAt1 ?? 0) >= 0.8,
      });
      t.push({
        name: 'Instant by meaning, embedded default: unrelated answered',
        target: '≤ 10%',
        measured: `${f(wordnet.falseMatchRate * 100, 1)}% of ${wordnet.unrelated}`,
        met: wordnet.falseMatchRate <= 0.1,
      });
    }
    for (const s of r.meaning.scale) {
      const [a, b] = s.points;
      t.push({
        name: `Instant library query p50, 100k vs 1k (${s.database})`,
        target: '≤ 3×',
        measured: `${f(s.p50Growth, 2)}× (${f(b.p50Ms, 2)} vs ${f(a.p50Ms, 2)} ms)`,
        met: s.p50Growth <= 3,
      });
    }
  }
  if (r.instant) {
    const [a, b] = r.instant.points;
    t.push({
      name: 'Instant match p50, 100k vs 1k library',
      target: '≤ 3×',
      measured: `${f(r.instant.p50Growth, 2)}× (${f(b.measurement.load.latencyMs.p50, 2)} vs ${f(a.measurement.load.latencyMs.p50, 2)} ms)`,
      met: r.instant.p50Growth <= 3,
    });
  }
  const shipped = r.gatewayMemory?.find((g) => g.runner.includes('as shipped'));
  const full = r.gatewayMemory?.find((g) => g.caches !== undefined || g.fillRequests !== undefined);
  const rss = r.http?.gateway.peakRssUnderPollMb ?? shipped?.poll.peakRssMb;
  if (rss !== undefined) {
    const fullText = full ? `; caches full: peak ${f(full.poll.peakRssMb, 0)} MB${full.survived ? '' : ', EXITED'}` : '';
    const worst = Math.max(rss, full?.poll.peakRssMb ?? 0);
    t.push({
      name: 'Gateway RSS under poll load (peak sampled)',
      target: '≤ 250 MB',
      measured: `${f(rss, 0)} MB${fullText}${shipped?.afterPoll ? ` (memory phase, after the load: ${splitText(shipped.afterPoll)})` : ''}`,
      met: worst <= 250 && full?.survived !== false,
    });
  }
  const em = r.embeddedMemory;
  if (em) {
    const after = em.afterWorkload.rssMb;
    t.push({
      name: `Embedded \`npm start\` RSS after ${em.generations} generations, an embed batch of ${em.embedElements} and the dashboard`,
      target: '≤ 350 MB',
      measured: 'n/a (embedded only)',
      met: null,
      embedded: { measured: `${f(after, 0)} MB (${splitText(em.afterWorkload)}; peak during the workload ${f(em.peakRssMb, 0)} MB)`, met: after <= 350 },
    });
  }
  const fairness = { production: r.fairness?.shapes.find((s) => s.shape === 'production'), embedded: r.fairness?.shapes.find((s) => s.shape === 'embedded') };
  if (fairness.production || fairness.embedded) {
    const bLatency = (s: NonNullable<typeof fairness.production>) => {
      const worst = Math.max(...s.bUnderFloodMs);
      return {
        measured: `${f(worst, 0)} ms worst of ${s.bUnderFloodMs.length} (idle ${f(median(s.bIdleMs), 0)} ms; bound ${f(bBoundMs(s), 0)} ms; ${s.aBacklogAtB} of A's jobs ahead by arrival)`,
        met: worst <= bBoundMs(s),
      };
    };
    const aShare = (s: NonNullable<typeof fairness.production>) => ({
      measured: `slots busy ${f(s.aAloneSlotsBusy * 100, 1)}% of the time; ${f(s.aAlonePerS, 2)} jobs/s = ${f((s.aAlonePerS / s.capacityPerS) * 100, 1)}% of slots / model latency`,
      met: s.aAloneSlotsBusy >= 0.9,
    });
    const row = (name: string, target: string, of: (s: NonNullable<typeof fairness.production>) => { measured: string; met: boolean }) => {
      const p = fairness.production && of(fairness.production);
      const e = fairness.embedded && of(fairness.embedded);
      t.push({ name, target, measured: p?.measured ?? 'not run', met: p?.met ?? null, ...(e && { embedded: e }) });
    };
    row("Fairness: B's one job under A's flood of 1,500", '≤ max(3 × idle, idle + 5 s)', bLatency);
    row("Fairness: A alone keeps the worker slots busy (time inside jobs ÷ slots' time)", '≥ 90%', aShare);
  }
  if (r.workerMemory)
    t.push({
      name: 'Worker peak RSS, c=8, 2048² PNG (VmHWM)',
      target: '≤ 600 MB',
      measured: `${f(r.workerMemory.vmHwmMb, 0)} MB`,
      met: (r.workerMemory.vmHwmMb ?? Infinity) <= 600,
    });
  if (r.cost) {
    const c = r.cost.comparison;
    t.push({
      name: 'Cost trace: fewer model calls than URL-keyed cache',
      target: '≥ 30%',
      measured: `${f(c.savingVsUrl * 100, 1)}% (${c.ours.modelCalls} vs ${c.url.modelCalls}; vs URL+collapsing ${f(c.savingVsUrlCollapsed * 100, 1)}%)`,
      met: c.savingVsUrl >= 0.3,
    });
  }
  return t;
}

export function toMarkdown(r: Results): string {
  const out: string[] = [];
  const line = (s = '') => out.push(s);
  const table = (head: string[], rows: Array<Array<string | number>>) => {
    line(`| ${head.join(' | ')} |`);
    line(`|${head.map(() => '---').join('|')}|`);
    for (const row of rows) line(`| ${row.join(' | ')} |`);
    line();
  };
  const m = r.meta;
  line(`# promptpix bench, ${m.startedAt}`);
  line();
  line(
    `Node ${m.node}, ${m.cpus} CPUs, load average at start ${m.loadAvgAtStart.map((v) => v.toFixed(2)).join(' / ')}${m.loadAvgAtEnd ? `, at end ${m.loadAvgAtEnd.map((v) => v.toFixed(2)).join(' / ')}` : ''}. ` +
      `Commit ${m.git.commit.slice(0, 10)} with ${m.git.modifiedFiles} uncommitted file(s). Run took ${f(m.seconds, 0)} s. ` +
      `Load generator (autocannon) on the same machine as the servers; every closed-loop run uses ${r.http?.connections ?? m.config.connections} connections.`,
  );
  if (m.error) {
    line();
    line(`**The run failed:** \`${m.error.split('\n')[0]}\` — the tables below hold what was measured before.`);
  }
  line();

  if (r.targets?.length) {
    line('## Targets');
    line();
    line(
      '"Production shape": gateway and worker as separate processes on PostgreSQL, Redis and local storage. "Embedded shape": `npm start` on its defaults (PGlite, in-process queue, local disk), one process.',
    );
    line();
    table(
      ['Target', 'Wanted', 'Production shape', 'Verdict', 'Embedded shape (`npm start`)', 'Verdict (embedded)'],
      r.targets.map((t) => [t.name, t.target, t.measured, yes(t.met), t.embedded?.measured ?? '–', t.embedded ? yes(t.embedded.met) : '–']),
    );
  }

  if (r.http) {
    line('## HTTP scenarios (closed loop) and floors');
    line();
    line(
      'Floors are measured in the same run, same connection count, same response body size: an Express 5 hello-world (gateway app settings, JSON body parser) and bare `node:http` + one Redis GET. ' +
        "Worker stopped during this phase. CPU is the server process's user+system time per request over the run; PG round trips and Redis commands per request are exact counts from the counting pass (below).",
    );
    line();
    table(
      [
        'Scenario',
        'ok req/s',
        'p50 ms',
        'p99 ms',
        'non-2xx/3xx',
        '429',
        'Express floor',
        '× Express',
        '× Express by CPU',
        'node:http floor',
        '× node:http',
        'CPU µs/req',
        'PG round trips/req',
        'Redis cmds/req',
        'load avg',
      ],
      r.http.scenarios.map((s) => [
        `${s.title}<br><sub>${s.request}, ${s.sample.bodyBytes} B body, ${s.sample.status}</sub>`,
        f(s.measurement.load.okRps, 0),
        f(s.measurement.load.latencyMs.p50, 2),
        f(s.measurement.load.latencyMs.p99, 2),
        s.measurement.load.errors,
        s.measurement.load.rateLimited,
        f(s.floors.express.load.okRps, 0),
        `${f(s.ratioExpress, 2)}${s.targetRatio !== undefined ? ` (≥ ${s.targetRatio})` : ''}`,
        f(s.cpuRatioExpress, 2),
        f(s.floors.http.load.okRps, 0),
        f(s.ratioHttp, 2),
        f(s.measurement.serverCpuUsPerReq, 0),
        f(s.wire?.pgRoundTripsPerReq, 2),
        s.wire ? `${f(s.wire.redisCommandsPerReq, 2)} (${f(s.wire.redisWritesPerReq, 2)} writes)` : '–',
        f(s.measurement.loadAvg1, 1),
      ]),
    );
    line(
      '"× Express by CPU" is the Express floor\'s CPU time per request divided by the scenario\'s: the throughput ratio if each server had a core to itself, and the figure least moved by other work on the machine (see the load average column).',
    );
    line();
    const seen = new Set<number>();
    const floorRows: Array<Array<string | number>> = [];
    for (const s of r.http.scenarios) {
      const p = s.floors;
      if (seen.has(p.bodyBytes)) continue;
      seen.add(p.bodyBytes);
      for (const [name, fm] of [
        ['Express hello-world', p.express],
        ['node:http + 1 Redis GET', p.http],
      ] as const) {
        floorRows.push([
          name,
          p.bodyBytes,
          f(fm.load.okRps, 0),
          f(fm.load.latencyMs.p50, 2),
          f(fm.load.latencyMs.p99, 2),
          fm.load.errors,
          f(fm.serverCpuUsPerReq, 0),
          f(fm.loadAvg1, 1),
        ]);
      }
    }
    line('Floors:');
    line();
    table(['Floor', 'body B', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'CPU µs/req', 'load avg'], floorRows);
    const wired = r.http.scenarios.filter((x) => x.wire);
    if (wired.length) {
      line('### What one request does on the wire');
      line();
      line(
        'Counted through PostgreSQL and Redis proxies in front of a second gateway, requests sent one at a time, buffered analytics writes included. Per request:',
      );
      line();
      for (const x of wired) {
        const w = x.wire!;
        line(
          `- **${x.title}** (${w.requests} requests, ${JSON.stringify(w.statuses)}): PostgreSQL ${f(w.pgRoundTripsPerReq, 2)} round trips, ${f(w.pgStatementsPerReq, 2)} statements; Redis ${f(w.redisCommandsPerReq, 2)} commands in ${f(w.redisWritesPerReq, 2)} writes.`,
        );
        for (const q of w.sql.slice(0, 8)) line(`  - ${f(q.perReq, 2)}× \`${q.sql.replace(/`/g, "'")}\``);
        if (w.redisCommands.length)
          line(
            `  - Redis: ${w.redisCommands
              .slice(0, 10)
              .map((c) => `${c.command} ${f(c.perReq, 2)}`)
              .join(', ')}`,
          );
        const u = x.wireUnderLoad;
        if (u) {
          line(
            `  - With ${u.inFlight} requests in flight (${u.requests} requests, ${JSON.stringify(u.statuses)}): PostgreSQL ${f(u.pgRoundTripsPerReq, 2)} round trips, ${f(u.pgStatementsPerReq, 2)} statements; Redis ${f(u.redisCommandsPerReq, 2)} commands in ${f(u.redisWritesPerReq, 2)} writes.`,
          );
          for (const q of u.sql.slice(0, 4)) line(`    - ${f(q.perReq, 3)}× \`${q.sql.replace(/`/g, "'")}\``);
        }
      }
      line();
    }
    if (r.http.fixedRate.length) {
      line('### Latency at a fixed rate');
      line();
      line(
        '`paced`: our open-loop generator, one request every 1/rate s (latency from the send; "scheduled" counts from the intended send time). ' +
          "`autocannon overallRate`: autocannon's fixed-rate mode, which sends each connection's share of a second back to back at the start of the second, all connections aligned — a burst of `rate` requests every second.",
      );
      line();
      const rows: Array<Array<string | number>> = [];
      for (const fr of r.http.fixedRate) {
        const runs: Array<[string, typeof fr.paced]> = [
          ['paced', fr.paced],
          ['autocannon overallRate', fr.autocannonRate],
        ];
        if (fr.expressFloorPaced) runs.push(['paced, on the Express floor (machine baseline)', fr.expressFloorPaced]);
        for (const [gen, mm] of runs) {
          rows.push([
            fr.title,
            gen,
            f(mm.load.okRps, 0),
            f(mm.load.latencyMs.p50, 2),
            f(mm.load.latencyMs.p90, 2),
            f(mm.load.latencyMs.p99, 2),
            f(mm.load.latencyMs.max, 1),
            mm.load.scheduledLatencyMs ? f(mm.load.scheduledLatencyMs.p99, 2) : '–',
            mm.load.errors + mm.load.rateLimited,
            f(mm.serverCpuUsPerReq, 0),
            `≤ ${fr.p99TargetMs}`,
          ]);
        }
      }
      table(['Scenario', 'Generator', 'ok req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'p99 from schedule', 'errors+429', 'CPU µs/req', 'p99 target'], rows);
    }
    const gm = r.http.gateway.memoryAfterPoll;
    line(
      `Gateway memory: peak RSS sampled during the poll run ${f(r.http.gateway.peakRssUnderPollMb, 0)} MB; VmHWM after the HTTP phase ${f(r.http.gateway.vmHwmAfterPhaseMb, 0)} MB.` +
        (gm ? ` Right after the poll run: ${splitText(gm)}.` : ''),
    );
    const warn = Object.entries(r.http.gateway.warnLines);
    if (warn.length) line(`Gateway log lines at warn/error during the HTTP phase: ${warn.map(([k, v]) => `${v}× "${k}"`).join('; ')}.`);
    line();
  }

  for (const l of embeddedMarkdown(r.embedded, r.http?.scenarios)) line(l);
  for (const l of imagesInMarkdown(r.imagesIn)) line(l);

  if (r.dbPaths?.length) {
    line('## Database reads of the hot paths, in isolation');
    line();
    line(
      "Sequential calls from the bench process against the bench database and the scenarios' own data; the repository method the gateway calls today next to the same answer through the Prisma ORM (how the cache lookups were written before they moved to the SQL client) and as one SQL statement through Prisma or `pg`. Round trips counted on the wire; CPU is the calling process's per call.",
    );
    line();
    table(
      ['Read', 'Variant', 'round trips', 'p50 ms', 'mean ms', 'CPU µs/call', 'rows'],
      r.dbPaths.map((d) => [d.path, d.variant, f(d.roundTrips, 2), f(d.p50Ms, 2), f(d.meanMs, 2), f(d.cpuUsPerCall, 0), d.rows]),
    );
  }

  if (r.gatewayMemory?.length) {
    line('## Gateway memory under the poll load');
    line();
    line(
      'The same gateway code, restarted fresh for each runner: the esbuild bundle on plain `node` as shipped (`npm run start:gateway`, the image: a 128 MB old generation), the same with every in-process cache first filled to its byte budget with the largest entries a caller can cause and churned during the load, and without the heap limit as before. Poll load as in the poll scenario. The split is read from the gateway\'s own gauges right after the load: V8 heap, external (Buffers, ArrayBuffers, wasm memories) and native (the rest of RSS: code, native libraries, malloc arenas, stacks); "caches" is the caches\' own estimate of their bytes (`promptpix_gateway_cache_bytes`).',
    );
    line();
    table(
      [
        'Runner',
        'RSS 3 s after start',
        'peak RSS under poll',
        'VmHWM',
        'after: V8 heap total (used)',
        'after: external',
        'after: native',
        'caches after (MB)',
        'ok req/s',
        'p99 ms',
        'CPU µs/req',
      ],
      r.gatewayMemory.map((g) => [
        g.survived === false ? `${g.runner} (**exited**)` : g.runner,
        `${f(g.idleRssMb, 0)} MB`,
        `${f(g.poll.peakRssMb, 0)} MB`,
        `${f(g.vmHwmMb, 0)} MB`,
        g.afterPoll ? `${f(g.afterPoll.heapTotalMb, 0)} (${f(g.afterPoll.heapUsedMb, 0)}) MB` : '–',
        `${f(g.afterPoll?.externalMb, 0)} MB`,
        `${f(g.afterPoll?.nativeMb, 0)} MB`,
        g.caches
          ? Object.entries(g.caches)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')
          : '–',
        f(g.poll.load.okRps, 0),
        f(g.poll.load.latencyMs.p99, 2),
        f(g.poll.serverCpuUsPerReq, 0),
      ]),
    );
  }

  if (r.embeddedMemory) {
    const e = r.embeddedMemory;
    line('## Embedded `npm start` memory');
    line();
    line(
      `The server bundle on plain node with nothing but \`npm start\`'s defaults (PGlite in a fresh DATA_DIR, in-process queue, local disk, procedural model). Workload: 3 accounts with keys, ${e.generations} generations at the default 1024×1024 WebP (8 in flight), one embed batch of ${e.embedElements} of them, GET /dashboard and its script, /service-client.js and /docs; ${f(e.workloadSeconds, 1)} s. Read 3 s after start-up and 3 s after the workload.`,
    );
    line();
    const databaseThread = (m: typeof e.idle) => (m.databaseHeapMb === undefined ? '–' : `${f(m.databaseHeapMb, 0)} / ${f(m.databaseExternalMb, 0)} MB`);
    table(
      ['When', 'RSS', 'VmHWM', 'V8 heap total (used)', 'external', 'database thread: V8 heap / external', 'native'],
      [
        [
          'idle after start-up',
          `${f(e.idle.rssMb, 0)} MB`,
          `${f(e.idle.vmHwmMb, 0)} MB`,
          `${f(e.idle.heapTotalMb, 0)} (${f(e.idle.heapUsedMb, 0)}) MB`,
          `${f(e.idle.externalMb, 0)} MB`,
          databaseThread(e.idle),
          `${f(e.idle.nativeMb, 0)} MB`,
        ],
        [
          'after the workload',
          `${f(e.afterWorkload.rssMb, 0)} MB`,
          `${f(e.afterWorkload.vmHwmMb, 0)} MB`,
          `${f(e.afterWorkload.heapTotalMb, 0)} (${f(e.afterWorkload.heapUsedMb, 0)}) MB`,
          `${f(e.afterWorkload.externalMb, 0)} MB`,
          databaseThread(e.afterWorkload),
          `${f(e.afterWorkload.nativeMb, 0)} MB`,
        ],
        ['peak sampled during the workload', `${f(e.peakRssMb, 0)} MB`, '', '', '', '', ''],
      ],
    );
  }

  if (r.pipeline) {
    const p = r.pipeline;
    line('## Pipeline overhead at light load');
    line();
    line(
      `${p.jobs} jobs one at a time, ${p.size}, MODEL_LATENCY_MS=0, worker concurrency 4, the client polling every ${p.pollEveryMs} ms after each answer. Model+encode = the same prompt through \`createModel('procedural')\` + \`encodeImage\` in the bench process.`,
    );
    line();
    table(
      ['', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'],
      [
        ['POST → completed seen', f(p.totalMs.p50, 2), f(p.totalMs.p90, 2), f(p.totalMs.p99, 2), f(p.totalMs.max, 1)],
        ['model + encode alone', f(p.modelEncodeMs.p50, 2), f(p.modelEncodeMs.p90, 2), f(p.modelEncodeMs.p99, 2), f(p.modelEncodeMs.max, 1)],
        ['overhead (difference)', f(p.overheadMs.p50, 2), f(p.overheadMs.p90, 2), f(p.overheadMs.p99, 2), f(p.overheadMs.max, 1)],
      ],
    );
    const b = p.breakdownMedianMs;
    line(
      `Medians from the job records (ms clocks): POST answered ${f(b.postAnswer, 2)} ms; queued → worker started ${f(b.queueWait, 0)} ms; worker started → completed ${f(b.processing, 0)} ms (of which not model+encode ≈ ${f(b.processingMinusModelEncode, 1)}); completed → seen by the poller ${f(b.visibleAfterCompleted, 0)} ms.`,
    );
    line();
  }

  if (r.throughput || r.workerMemory) {
    line('## Worker');
    line();
    const rows: Array<Array<string | number>> = [];
    if (r.throughput) {
      const t = r.throughput;
      rows.push([
        `Throughput, c=${t.concurrency}, model ${t.modelLatencyMs} ms, ${t.size}`,
        `${f(t.sustainedJobsPerS, 2)} jobs/s sustained over ${f(t.windowS, 1)} s (ideal ${t.idealJobsPerS}; plain count over 20 s: ${f(t.naiveJobsPer20s, 2)})`,
        `${t.completed}/${t.jobs} completed, ${t.failed} failed; worker CPU ${f(t.workerCpuPct, 0)}%, peak RSS ${f(t.workerPeakRssMb, 0)} MB`,
      ]);
    }
    if (r.workerMemory) {
      const w = r.workerMemory;
      rows.push([
        `Peak memory, c=${w.concurrency}, ${w.jobs} × ${w.size}`,
        `VmHWM ${f(w.vmHwmMb, 0)} MB (sampled peak ${f(w.peakRssSampledMb, 0)} MB)`,
        `baseline RSS ${f(w.baselineRssMb, 0)} MB; ${f(w.seconds, 1)} s`,
      ]);
    }
    table(['Run', 'Result', 'Detail'], rows);
    const warn = Object.entries(r.workerWarnLines ?? {});
    if (warn.length) line(`Worker log lines at warn/error: ${warn.map(([k, v]) => `${v}× "${k}"`).join('; ')}.`);
    line();
  }

  if (r.fairness) {
    line('## Fairness: one account floods, another sends one job');
    line();
    line(
      'Account A (three secret keys) starts its jobs through embed resolve, batches of 50 new prompts at 256×256, within the documented limits; then account B sends one generation at a time and polls it to `completed`. The model takes a fixed time per image (`MODEL_LATENCY_MS`); capacity is slots / model latency. "A ahead by arrival" is how many of A\'s jobs were waiting or running when B\'s first job came.',
    );
    line();
    table(
      [
        'Shape',
        'Setup',
        'Flood',
        'B idle ms',
        'B under flood ms',
        "B's first position",
        'Bound ms',
        'A alone jobs/s',
        'Slots busy (A alone)',
        'A during B jobs/s',
        'Slots / model latency',
      ],
      r.fairness.shapes.map((s) => [
        s.shape,
        s.setup,
        `${s.floodStarted} jobs in ${f(s.floodEnqueueS, 1)} s`,
        s.bIdleMs.join(', '),
        s.bUnderFloodMs.join(', '),
        f(s.bFirstPosition, 0),
        f(bBoundMs(s), 0),
        f(s.aAlonePerS, 2),
        `${f(s.aAloneSlotsBusy * 100, 1)}%`,
        f(s.aDuringPerS, 2),
        f(s.capacityPerS, 1),
      ]),
    );
  }
  if (r.meaning) meaningMarkdown(r.meaning, line, table);
  if (r.subjects) {
    line('## Built-in model: subjects drawn');
    line();
    line(
      `Evaluation set: bench/src/scenarios/subject-eval-set.ts; the main subject counts as drawn when the first phrase of the image's revisedPrompt names it.`,
    );
    line();
    table(
      ['Kind', 'Prompts', 'Main subject drawn'],
      Object.entries(r.subjects.byKind).map(([kind, k]) => [kind, k.cases, `${k.drawn} (${f((k.drawn / k.cases) * 100, 0)}%)`]),
    );
    if (r.subjects.missed.length > 0)
      table(
        ['Missed prompt', 'revisedPrompt'],
        r.subjects.missed.map((m) => [m.prompt, m.revisedPrompt || '–']),
      );
  }
  if (r.instant) {
    line('## Instant nearest match vs library size');
    line();
    line(`POST /api/v1/generate {"mode":"instant"}, ${r.instant.queries} query prompts in rotation, ${r.instant.connections} connections (closed loop).`);
    line();
    table(
      ['Library images', 'req/s', 'p50 ms', 'p99 ms', 'statuses', 'CPU µs/req', 'PG round trips/req', 'EXPLAIN ANALYZE one query', 'load avg'],
      r.instant.points.map((p) => [
        p.libraryImages.toLocaleString('en-US'),
        f(p.measurement.load.okRps, 0),
        f(p.measurement.load.latencyMs.p50, 2),
        f(p.measurement.load.latencyMs.p99, 2),
        JSON.stringify(p.statusCounts),
        f(p.measurement.serverCpuUsPerReq, 0),
        f(p.wire?.pgRoundTripsPerReq, 2),
        `${f(p.explainMs.execution, 2)} ms exec + ${f(p.explainMs.planning, 2)} ms plan`,
        f(p.measurement.loadAvg1, 1),
      ]),
    );
    const last = r.instant.points[r.instant.points.length - 1];
    if (last.explainMs.plan) {
      line(`Plan at ${last.libraryImages.toLocaleString('en-US')} images ("${last.explainMs.sample}"):`);
      line();
      line('```');
      line(last.explainMs.plan);
      line('```');
      line();
    }
  }

  if (r.cost) {
    const c = r.cost.comparison;
    const tr = r.cost.trace;
    line('## Cost trace: model calls');
    line();
    line(
      `${tr.requests.toLocaleString('en-US')} requests over ${f(tr.spanS, 0)} s, ${tr.accountWeights.length} accounts (shares ${tr.accountWeights.join(' / ')}), ${tr.vocabulary} prompts per account, Zipf s=${tr.zipfS} (distinct prompts used: ${tr.distinctPromptsPerAccount.join(' / ')}), ` +
        `usual size/format ${tr.homeVariantP * 100}% of the time, whitespace variants ${tr.whitespaceP * 100}%, bursts of ${tr.burstSize[0]}–${tr.burstSize[1]} identical requests within ${tr.burstSpreadMs} ms on ${tr.burstP * 100}% of arrivals, ` +
        `${tr.arrivalsPerS} arrivals/s, generation ${f(c.params.generateMs, 0)} ms, derivation ${f(c.params.deriveMs, 0)} ms.`,
    );
    line();
    table(
      ['Policy', 'Model calls', 'Cache hits', 'Joined in flight', 'Derived', 'Saving vs URL cache'],
      [
        ['No cache', c.none.modelCalls, 0, 0, 0, `${f((1 - c.none.modelCalls / c.url.modelCalls) * 100, 1)}%`],
        ['URL-keyed cache (account, prompt as sent, style, size, format)', c.url.modelCalls, c.url.hits, 0, 0, '0%'],
        [
          'URL-keyed cache + request collapsing',
          c.urlCollapsed.modelCalls,
          c.urlCollapsed.hits,
          c.urlCollapsed.joined,
          0,
          `${f((1 - c.urlCollapsed.modelCalls / c.url.modelCalls) * 100, 1)}%`,
        ],
        ['**Our rules**', `**${c.ours.modelCalls}**`, c.ours.hits, c.ours.joined, c.ours.derived, `**${f(c.savingVsUrl * 100, 1)}%**`],
        ['Our rules without prompt normalisation', c.withoutRule.normalize, '', '', '', `${f((1 - c.withoutRule.normalize / c.url.modelCalls) * 100, 1)}%`],
        ['Our rules without derived variants', c.withoutRule.derive, '', '', '', `${f((1 - c.withoutRule.derive / c.url.modelCalls) * 100, 1)}%`],
        ['Our rules without single flight', c.withoutRule.singleFlight, '', '', '', `${f((1 - c.withoutRule.singleFlight / c.url.modelCalls) * 100, 1)}%`],
      ],
    );
    line('Sensitivity (one trace parameter changed at a time):');
    line();
    table(
      ['Change', 'URL cache', 'URL + collapsing', 'Ours', 'Saving vs URL', 'vs URL + collapsing'],
      r.cost.sensitivity.map((s) => [s.change, s.url, s.urlCollapsed, s.ours, `${f(s.savingVsUrl * 100, 1)}%`, `${f(s.savingVsUrlCollapsed * 100, 1)}%`]),
    );
    const rp = r.cost.replay;
    if (rp) {
      line(
        `Replay against the real service (first ${f(rp.spanS, 0)} s of the trace, ${rp.requests} requests, statuses ${JSON.stringify(rp.statusCounts)}, sizes swapped for small stand-ins): ` +
          `the service stored **${rp.real.modelCalls} originals (model calls)** and ${rp.real.derived} derived variants; the simulation of the same slice with the service's own timings ` +
          `(generation ${f(rp.timings.generateMsP50, 0)} ms, derivation ${f(rp.timings.deriveMsP50, 0)} ms) predicts **${rp.simulated.modelCalls}** model calls and ${rp.simulated.derived} derivations ` +
          `(model-call difference ${f(rp.modelCallError * 100, 1)}%); a URL-keyed cache would have made ${rp.simulatedUrl}.`,
      );
      line();
    }
  }

  if (r.profile) {
    line('## CPU profiles of the gateway');
    line();
    line(
      `\`node --cpu-prof\` on one gateway process, ${r.profile.note}; the profile (\`${r.profile.file}\`, open in Chrome DevTools or speedscope) is cut into one window per scenario. Shares are of non-idle time in the window.`,
    );
    line();
    for (const p of r.profile.scenarios) {
      line(`### ${p.id}: ${p.load ? `${f(p.load.load.okRps, 0)} req/s while profiled, ` : ''}${f(p.totalMs, 0)} ms sampled, ${f(p.idlePct, 1)}% idle`);
      line();
      line(
        `Self time by area: ${p.groups
          .slice(0, 12)
          .map((g) => `${g.group} ${f(g.pct, 1)}%`)
          .join(', ')}.`,
      );
      line();
      line(
        `Inclusive (area anywhere on the stack, its callees and syscalls included): ${p.groupInclusive
          .filter((g) => !['node:other', 'native runMicrotasks', 'node:async_hooks', 'GC'].includes(g.group))
          .slice(0, 12)
          .map((g) => `${g.group} ${f(g.pct, 1)}%`)
          .join(', ')}.`,
      );
      line();
      line(
        `Inclusive time in our code: ${p.appInclusive
          .slice(0, 14)
          .map((a) => `\`${a.fn}\` (${a.where}) ${f(a.pct, 1)}%`)
          .join(', ')}.`,
      );
      line();
      table(
        ['Function', 'Where', 'Area', 'self ms', '%'],
        p.top.slice(0, p.id === 'poll' ? 25 : 15).map((t) => [`\`${t.fn}\``, t.where ? `\`${t.where}\`` : '', t.group, t.selfMs, f(t.pct, 1)]),
      );
    }
  }

  if (m.cleanup) {
    line(`Cleanup: ${m.cleanup.join('; ')}.`);
    line();
  }
  return out.join('\n');
}

function meaningMarkdown(m: MeaningResult, line: (s?: string) => void, table: (head: string[], rows: Array<Array<string | number>>) => void) {
  line('## Instant mode by meaning');
  line();
  line(
    'Evaluation set: packages/testing/src/instant-eval-set.ts (tuning and held-out subjects all in one library, and each split alone), through the instant service on PGlite, INSTANT_MIN_SCORE 0.3.',
  );
  line();
  table(
    ['Adapter', 'Subjects', 'Recall@1', 'Paraphrases', 'Unrelated answered', 'Unrelated', 'Recall@1 tuning / held-out', 'Unrelated answered tuning / held-out'],
    m.evaluation.map((e) => [
      e.adapter,
      e.subjects,
      f(e.recallAt1, 3),
      e.paraphrases,
      `${f(e.falseMatchRate * 100, 1)}%`,
      e.unrelated,
      `${f(e.bySplit.tuning?.recallAt1 ?? NaN, 3)} / ${f(e.bySplit['held-out']?.recallAt1 ?? NaN, 3)}`,
      `${f((e.bySplit.tuning?.falseMatchRate ?? NaN) * 100, 1)}% / ${f((e.bySplit['held-out']?.falseMatchRate ?? NaN) * 100, 1)}%`,
    ]),
  );
  line(
    `Library query (lexical + by meaning, the embedded default's vectors) on a varied corpus (${m.corpus.qualities} qualities × ${m.corpus.things} things × ${m.corpus.actions} actions × ${m.corpus.settings} settings × ${m.corpus.lights} lights), one query at a time, the set's paraphrases as queries.`,
  );
  line();
  table(
    ['Database', 'Library images', 'p50 ms', 'p95 ms', 'Answered', 'Indexing s'],
    m.scale.flatMap((s) =>
      s.points.map((p) => [
        s.database,
        p.libraryImages.toLocaleString('en-US'),
        f(p.p50Ms, 2),
        f(p.p95Ms, 2),
        `${p.answered}/${p.queries}`,
        f(p.indexSeconds, 1),
      ]),
    ),
  );
  for (const s of m.scale) {
    const last = s.points[s.points.length - 1];
    line(`Plan at ${last.libraryImages.toLocaleString('en-US')} images (${s.database}):`);
    line();
    line('```');
    line(last.plan);
    line('```');
    line();
  }
}
