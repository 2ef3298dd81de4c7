/**
 * Runs one load and reads what the server process spent per request (user + system CPU time from
 * /proc, over the run after its first second) and its peak RSS while loaded. CPU per request is
 * the figure least disturbed by other work on the machine: it is what the throughput would be if
 * the server had a core to itself.
 */
import { loadavg } from 'node:os';
import type { LoadHandle, LoadResult } from './load';
import { readCpuMs, sampleRss, sleep } from './proc';

export interface Measurement {
  load: LoadResult;
  window: { responses: number; seconds: number };
  serverCpuUsPerReq?: number;
  /** Server CPU use over the window, % of one core. */
  serverCpuPct?: number;
  peakRssMb?: number;
  /** 1-minute load average when the run ended (other work on the machine shows here). */
  loadAvg1: number;
}

const round = (v: number, digits = 2) => (Number.isFinite(v) ? Math.round(v * 10 ** digits) / 10 ** digits : undefined);

export async function measure(start: () => LoadHandle, probes: { serverPid?: number }, o: { windowStartMs?: number } = {}): Promise<Measurement> {
  const { serverPid } = probes;
  const rss = serverPid ? sampleRss(serverPid) : null;
  const handle = start();
  let a: { t: number; responses: number; cpu: number } | null = null;
  const first = sleep(o.windowStartMs ?? 1000).then(() => {
    a = { t: Date.now(), responses: handle.responses(), cpu: serverPid ? readCpuMs(serverPid) : NaN };
  });
  const load = await handle.done;
  const b = { t: Date.now(), responses: load.responses, cpu: serverPid ? readCpuMs(serverPid) : NaN };
  await first;
  const w = a as unknown as { t: number; responses: number; cpu: number };
  const n = b.responses - w.responses;
  const seconds = (b.t - w.t) / 1000;
  return {
    load,
    window: { responses: n, seconds: round(seconds)! },
    serverCpuUsPerReq: n > 0 ? round(((b.cpu - w.cpu) * 1000) / n, 0) : undefined,
    serverCpuPct: seconds > 0 ? round((b.cpu - w.cpu) / 10 / seconds, 0) : undefined,
    peakRssMb: rss ? round(rss.stop(), 1) : undefined,
    loadAvg1: round(loadavg()[0])!,
  };
}
