/**
 * The server's event-loop delay over one run, from its own `/metrics`: prom-client's
 * `nodejs_eventloop_lag_*` gauges come from `perf_hooks.monitorEventLoopDelay` and the histogram
 * is reset on every scrape, so a scrape before the run and one after it bracket the run.
 */
export interface EventLoopDelay {
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

const GAUGES: Array<[keyof EventLoopDelay, string]> = [
  ['p50Ms', 'nodejs_eventloop_lag_p50_seconds'],
  ['p90Ms', 'nodejs_eventloop_lag_p90_seconds'],
  ['p99Ms', 'nodejs_eventloop_lag_p99_seconds'],
  ['maxMs', 'nodejs_eventloop_lag_max_seconds'],
  ['meanMs', 'nodejs_eventloop_lag_mean_seconds'],
];

async function scrape(base: string): Promise<EventLoopDelay | undefined> {
  try {
    const res = await fetch(`${base}/metrics`);
    if (!res.ok) return undefined;
    const text = await res.text();
    const out: Partial<EventLoopDelay> = {};
    for (const [field, name] of GAUGES) {
      const value = new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)`, 'm').exec(text)?.[1];
      if (value === undefined) return undefined;
      out[field] = Math.round(Number(value) * 1e5) / 100;
    }
    return out as EventLoopDelay;
  } catch {
    return undefined;
  }
}

/** Runs `work` between two scrapes; the delay histogram of the second covers the run only. */
export async function withEventLoopDelay<T>(base: string, work: () => Promise<T>): Promise<{ result: T; eventLoop?: EventLoopDelay }> {
  await scrape(base);
  const result = await work();
  return { result, eventLoop: await scrape(base) };
}
