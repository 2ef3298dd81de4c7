/**
 * The embedded default under load (issue 19, item 5): `npm start`'s process (PGlite, in-process
 * queue and worker, local disk) serving the same embed batch of 50 cached elements as the
 * production scenario, at the same connection count, with its event-loop delay over the run.
 */
import { join } from 'node:path';
import { operatorApi, publicApi } from '../api';
import type { Ctx } from '../context';
import { withEventLoopDelay, type EventLoopDelay } from '../event-loop';
import { runAutocannon, type LoadTarget } from '../load';
import { measure, type Measurement } from '../measure';
import { logLevels, readCpuMs } from '../proc';
import { startEmbeddedServer } from '../stack';

export interface EmbeddedPhaseResult {
  embed: Measurement;
  eventLoop?: EventLoopDelay;
  /** CPU of the server's main thread (HTTP, the in-process worker) per answer over the measured run; the rest of serverCpuUsPerReq is the database thread's and libuv's. */
  mainThreadCpuUsPerReq?: number;
  /** The production gateway's embed run of the same phase, for the ratio. */
  productionP99Ms?: number;
  p99VsProduction?: number;
  /** The embedded server's log lines at warn/error over the phase, by message. */
  warnLines?: Record<string, number>;
}

/** The 50 prompts of the embed scenarios (the production one uses the same). */
export const EMBED_PROMPTS = Array.from(
  { length: 50 },
  (_, i) =>
    `embed element ${i}: a ${['fox', 'owl', 'castle', 'robot', 'garden'][i % 5]} in ${['spring', 'summer', 'autumn', 'winter', 'fog'][Math.floor(i / 5) % 5]} ${i}`,
);

export const embedBodyOf = (prompts: string[]) =>
  JSON.stringify({ elements: prompts.map((prompt, i) => ({ id: `e${i}`, prompt, width: 256, height: 256, format: 'png' })) });

export async function runEmbeddedPhase(ctx: Ctx, productionP99Ms?: number): Promise<EmbeddedPhaseResult> {
  const { stack, config, log } = ctx;
  // BENCH_EMBEDDED_NODE_ARGS: extra node flags for this phase's server only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`, not allowed in NODE_OPTIONS).
  const { child, base } = await startEmbeddedServer({
    name: 'embedded',
    dataDir: join(stack.dataDir, '..', 'embedded'),
    adminToken: stack.adminToken,
    logDir: stack.logDir,
    env: { MAX_KEYS_PER_ACCOUNT: '1000' },
    nodeArgs: (process.env.BENCH_EMBEDDED_NODE_ARGS ?? '').split(' ').filter(Boolean),
  });
  try {
    log(`embedded: server pid ${child.pid} on ${base}; generating the 50 cached elements`);
    const account = await operatorApi(base, stack.adminToken).benchAccount('bench-embedded-embed', 64);
    await publicApi(base).generateAll(
      account.keys[0],
      EMBED_PROMPTS.map((prompt) => ({ prompt, width: 256, height: 256, format: 'png' as const })),
    );
    const target: LoadTarget = {
      base,
      request: { method: 'POST', path: '/api/v1/embed/resolve', headers: { 'content-type': 'application/json' }, body: embedBodyOf(EMBED_PROMPTS) },
      vary: (i) => ({ headers: { authorization: `Bearer ${account.keys[i % account.keys.length]}` } }),
    };
    await runAutocannon(target, { connections: config.connections, durationS: config.warmupS }).done;
    const mainCpuBefore = readCpuMs(child.pid, child.pid);
    const { result: embed, eventLoop } = await withEventLoopDelay(base, () =>
      measure(() => runAutocannon(target, { connections: config.connections, durationS: config.durationS }), { serverPid: child.pid }),
    );
    const mainCpuMs = readCpuMs(child.pid, child.pid) - mainCpuBefore;
    const p99 = embed.load.latencyMs.p99;
    log(
      `embedded: embed ${embed.load.okRps} ok req/s, p50 ${embed.load.latencyMs.p50} ms, p99 ${p99} ms (production ${productionP99Ms ?? '–'} ms); CPU ${embed.serverCpuUsPerReq ?? '–'} µs/req; event-loop delay p99 ${eventLoop?.p99Ms ?? '–'} ms, max ${eventLoop?.maxMs ?? '–'} ms`,
    );
    return {
      embed,
      eventLoop,
      mainThreadCpuUsPerReq: embed.load.responses > 0 && Number.isFinite(mainCpuMs) ? Math.round((mainCpuMs * 1000) / embed.load.responses) : undefined,
      productionP99Ms,
      p99VsProduction: productionP99Ms && p99 !== undefined ? Math.round((p99 / productionP99Ms) * 100) / 100 : undefined,
      warnLines: logLevels(child),
    };
  } finally {
    await child.stop();
  }
}

const f = (v: number | undefined, digits = 2) => (v === undefined ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits }));

/** The phase's section of the results markdown. */
export function embeddedMarkdown(r: EmbeddedPhaseResult | undefined, production: Array<{ title: string; eventLoop?: EventLoopDelay }> = []): string[] {
  const withDelay = production.filter((s) => s.eventLoop);
  const gatewayDelay = withDelay.length
    ? [
        '## Event-loop delay of the production gateway',
        '',
        "The gateway's own `monitorEventLoopDelay` histogram over each measured closed-loop run of the HTTP phase.",
        '',
        '| Scenario | p50 ms | p90 ms | p99 ms | max ms |',
        '|---|---|---|---|---|',
        ...withDelay.map((s) => `| ${s.title} | ${f(s.eventLoop!.p50Ms)} | ${f(s.eventLoop!.p90Ms)} | ${f(s.eventLoop!.p99Ms)} | ${f(s.eventLoop!.maxMs)} |`),
        '',
      ]
    : [];
  if (!r) return gatewayDelay;
  const m = r.embed;
  return [
    ...gatewayDelay,
    '## The embedded default under load',
    '',
    `\`npm start\`'s process (PGlite, in-process queue and worker) serving the embed batch of 50 cached elements, closed loop at the same connection count as the production scenario. Event-loop delay is the server's own \`monitorEventLoopDelay\` histogram over the measured run.`,
    '',
    'CPU µs/req is the whole process (every thread); "main thread" is the part spent on the thread that runs the HTTP server (the database runs on a thread of its own).',
    '',
    '| Shape | ok req/s | p50 ms | p99 ms | p99 × production (target ≤ 2) | CPU µs/req | of which main thread | event-loop delay p50 / p99 / max ms | load avg |',
    '|---|---|---|---|---|---|---|---|---|',
    `| embedded (\`npm start\`) | ${f(m.load.okRps, 0)} | ${f(m.load.latencyMs.p50)} | ${f(m.load.latencyMs.p99)} | ${f(r.p99VsProduction)} (production p99 ${f(r.productionP99Ms)} ms) | ${f(m.serverCpuUsPerReq, 0)} | ${f(r.mainThreadCpuUsPerReq, 0)} | ${r.eventLoop ? `${f(r.eventLoop.p50Ms)} / ${f(r.eventLoop.p99Ms)} / ${f(r.eventLoop.maxMs)}` : '–'} | ${f(m.loadAvg1, 1)} |`,
    '',
    ...(r.warnLines && Object.keys(r.warnLines).length
      ? [
          `Embedded server log lines at warn/error: ${Object.entries(r.warnLines)
            .map(([k, v]) => `${v}× "${k}"`)
            .join('; ')}.`,
          '',
        ]
      : []),
  ];
}
