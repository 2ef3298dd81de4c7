/**
 * Where the gateway's time goes on the poll endpoint: the gateway restarted with
 * `node --cpu-prof`, loaded like the poll scenario, stopped (the profile is written at exit), and
 * the profile reduced to self time per function and per package.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Ctx } from '../context';
import { runAutocannon, type LoadTarget } from '../load';
import { measure, type Measurement } from '../measure';
import { ROOT, sleep } from '../proc';

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileRow {
  fn: string;
  where: string;
  group: string;
  selfMs: number;
  /** Share of non-idle samples. */
  pct: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  idlePct: number;
  top: ProfileRow[];
  groups: Array<{ group: string; selfMs: number; pct: number }>;
  /** Time spent inside a function of our code (apps/, packages/), callees included, by function. */
  appInclusive: Array<{ fn: string; where: string; pct: number }>;
  /** Time spent with a package anywhere on the stack (callees included, e.g. the syscalls it makes). */
  groupInclusive: Array<{ group: string; pct: number }>;
  load?: Measurement;
}

/** What a frame belongs to: a package, Node's own code, the app, or V8's pseudo-frames. */
export function groupOf(url: string, fn: string): string {
  if (!url) {
    if (fn === '(idle)') return '(idle)';
    if (fn === '(garbage collector)') return 'GC';
    if (fn === '(program)') return 'V8/native (program)';
    return `native ${fn}`;
  }
  // Prisma 7 runs its query compiler as WebAssembly; nothing else in the gateway is wasm on a hot path.
  if (url.startsWith('wasm://')) return 'wasm (Prisma query compiler)';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (path.startsWith('node:')) {
    const mod = path.slice(5);
    if (/^(_http|http|internal\/http)/.test(mod)) return 'node:http';
    if (/^(net|internal\/stream_base|internal\/streams|stream)/.test(mod)) return 'node:net/streams';
    if (/async_hooks|async_local/.test(mod)) return 'node:async_hooks';
    return 'node:other';
  }
  if (path.startsWith(ROOT)) {
    const rel = relative(ROOT, path).split('/');
    return `app ${rel.slice(0, 2).join('/')}`;
  }
  return 'other';
}

/** Self time per function and per area, over the samples taken between `fromUs` and `toUs` (profile clock). */
export function summarizeProfile(profile: CpuProfile, file: string, window?: { fromUs: number; toUs: number }, topN = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time since the previous sample: charge it to sample i's frame.
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const rows = new Map<string, { fn: string; where: string; group: string; us: number }>();
  const groups = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = functionName || '(anonymous)';
    const group = groupOf(url, fn);
    total += us;
    if (group === '(idle)') {
      idle += us;
      continue;
    }
    const short = url
      .replace(/^file:\/\//, '')
      .replace(`${ROOT}/`, '')
      .replace(/^.*node_modules\//, '');
    const where = url ? `${short}:${lineNumber + 1}` : '';
    const key = `${fn}|${where}`;
    const row = rows.get(key) ?? { fn, where, group, us: 0 };
    row.us += us;
    rows.set(key, row);
    groups.set(group, (groups.get(group) ?? 0) + us);
  }
  const busy = total - idle;
  const pct = (us: number) => Math.round((us / busy) * 1000) / 10;

  // Inclusive attribution: every app frame and every area on a sample's stack gets its time once.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const appKeys = new Map<number, string[]>();
  const groupKeys = new Map<number, string[]>();
  const appIncl = new Map<string, number>();
  const groupIncl = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const self = byId.get(id)!;
    if (groupOf(self.callFrame.url, self.callFrame.functionName) === '(idle)') continue;
    if (!appKeys.has(id)) {
      const apps = new Set<string>();
      const groups = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const { functionName, url, lineNumber } = byId.get(cur)!.callFrame;
        const group = groupOf(url, functionName || '(anonymous)');
        if (group !== 'V8/native (program)' && !group.startsWith('native (root)')) groups.add(group);
        if (group.startsWith('app ')) apps.add(`${functionName || '(anonymous)'}|${url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '')}:${lineNumber + 1}`);
      }
      appKeys.set(id, [...apps]);
      groupKeys.set(id, [...groups]);
    }
    for (const k of appKeys.get(id)!) appIncl.set(k, (appIncl.get(k) ?? 0) + us);
    for (const k of groupKeys.get(id)!) groupIncl.set(k, (groupIncl.get(k) ?? 0) + us);
  }
  return {
    file,
    totalMs: Math.round(total / 1000),
    idlePct: Math.round((idle / total) * 1000) / 10,
    top: [...rows.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, topN)
      .map((r) => ({ fn: r.fn, where: r.where, group: r.group, selfMs: Math.round(r.us / 1000), pct: pct(r.us) })),
    groups: [...groups.entries()].sort((a, b) => b[1] - a[1]).map(([group, us]) => ({ group, selfMs: Math.round(us / 1000), pct: pct(us) })),
    appInclusive: [...appIncl.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([k, us]) => ({ fn: k.split('|')[0], where: k.split('|')[1], pct: pct(us) })),
    groupInclusive: [...groupIncl.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([group, us]) => ({ group, pct: pct(us) })),
  };
}

export interface ProfilePhaseResult {
  file: string;
  note: string;
  scenarios: Array<{ id: string } & ProfileSummary>;
}

/**
 * One gateway process started with --cpu-prof serves each scenario in turn (warm-up, then the
 * profiled run, then a pause); the single profile it writes at exit is cut into one window per
 * scenario. The profile's clock starts when the process starts, so a window is placed from the
 * wall-clock times relative to the spawn (±50 ms), and trimmed by 300 ms on each side.
 */
export async function runProfilePhase(
  ctx: Ctx,
  targets: Array<{ id: string; target: LoadTarget }>,
  resultsDir: string,
  stamp: string,
): Promise<ProfilePhaseResult> {
  const { stack, config, log } = ctx;
  const dir = join(stack.logDir, 'cpu-prof');
  mkdirSync(dir, { recursive: true });
  log(`profile: restarting the gateway with --cpu-prof for ${targets.map((t) => t.id).join(', ')}`);
  await stack.stopGateway();
  const child = await stack.startGateway({ nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir] });
  const windows: Array<{ id: string; from: number; to: number; load: Measurement }> = [];
  const seconds = Math.min(6, config.durationS);
  try {
    for (const { id, target } of targets) {
      await runAutocannon(target, { connections: config.connections, durationS: config.warmupS }).done;
      const from = Date.now();
      const load = await measure(() => runAutocannon(target, { connections: config.connections, durationS: seconds }), { serverPid: child.pid });
      windows.push({ id, from, to: Date.now(), load });
      log(`profile:   ${id}: ${load.load.okRps} req/s while profiled`);
      await sleep(1500);
      if (id === 'generate') await stack.deleteRedisKeys(`${stack.redisPrefix}:generation:*`);
    }
  } finally {
    await stack.stopGateway();
  }
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error('the gateway wrote no .cpuprofile');
  const source = join(dir, files[0]);
  const kept = join(resultsDir, `${stamp}-gateway.cpuprofile`);
  copyFileSync(source, kept);
  const profile = JSON.parse(readFileSync(source, 'utf8')) as CpuProfile;
  const toUs = (wall: number) => profile.startTime + (wall - child.startedAt) * 1000;
  const scenarios = windows.map((w) => ({
    id: w.id,
    ...summarizeProfile(profile, relative(ROOT, kept), { fromUs: toUs(w.from) + 300_000, toUs: toUs(w.to) - 300_000 }),
    load: w.load,
  }));
  for (const p of scenarios)
    log(
      `profile: ${p.id}: ${p.top
        .slice(0, 4)
        .map((r) => `${r.fn} ${r.pct}%`)
        .join(', ')}`,
    );
  log('profile: restarting the gateway without the profiler');
  await stack.startGateway();
  return { file: relative(ROOT, kept), note: `${seconds} s of closed-loop load per scenario at ${config.connections} connections`, scenarios };
}
