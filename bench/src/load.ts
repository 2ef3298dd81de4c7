/**
 * Load generation against 127.0.0.1 only, always bounded in time.
 * - closed loop: autocannon, N connections each sending the next request when the last answered
 *   (throughput);
 * - autocannon `overallRate`: its fixed-rate mode (each connection sends its share of the second's
 *   requests back to back at the start of every second, all connections aligned, so it is bursty);
 * - paced: our own open-loop generator, one request every 1/rate s on a keep-alive agent
 *   (latency at a fixed, smooth rate).
 * Latencies are collected per response in float milliseconds (autocannon's own histogram rounds
 * to whole milliseconds).
 */
import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface RequestShape {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadTarget {
  /** http://127.0.0.1:<port> */
  base: string;
  request: RequestShape;
  /** Per-request variation (a rotating key, a distinct prompt): the i-th request's fields. */
  vary?: (i: number) => Partial<RequestShape>;
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  mode: 'closed' | 'autocannon-rate' | 'paced';
  connections?: number;
  targetRate?: number;
  durationS: number;
  responses: number;
  rps: number;
  /** Responses with a 2xx or 3xx status, per second. */
  okRps: number;
  latencyMs: LatencySummary;
  /** Paced mode: latency counted from the scheduled send time (coordinated-omission corrected). */
  scheduledLatencyMs?: LatencySummary;
  statusCounts: Record<string, number>;
  /** Responses outside 2xx/3xx other than 429, plus transport errors and timeouts. */
  errors: number;
  rateLimited: number;
  transportErrors: number;
}

export interface LoadHandle {
  /** Responses received so far. */
  responses(): number;
  done: Promise<LoadResult>;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export function summarize(values: number[]): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  const arr = Array.from(sorted);
  const mean = arr.length ? arr.reduce((a, b) => a + b, 0) / arr.length : NaN;
  const r = (v: number) => Math.round(v * 100) / 100;
  return { p50: r(percentile(arr, 50)), p90: r(percentile(arr, 90)), p99: r(percentile(arr, 99)), max: r(arr[arr.length - 1] ?? NaN), mean: r(mean) };
}

function tally(statusCounts: Record<string, number>) {
  let errors = 0;
  let ok = 0;
  let rateLimited = 0;
  for (const [code, n] of Object.entries(statusCounts)) {
    const c = Number(code);
    if (c >= 200 && c < 400) ok += n;
    else if (c === 429) rateLimited += n;
    else errors += n;
  }
  return { ok, errors, rateLimited };
}

function buildRequest(target: LoadTarget, i: number): RequestShape {
  if (!target.vary) return target.request;
  const v = target.vary(i);
  return { ...target.request, ...v, headers: { ...target.request.headers, ...v.headers } };
}

/** Closed loop (no `rate`) or autocannon's fixed-rate mode (`rate`). */
export function runAutocannon(target: LoadTarget, o: { connections: number; durationS: number; rate?: number }): LoadHandle {
  let counter = 0;
  let received = 0;
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  const started = performance.now();
  const instance = autocannon({
    url: target.base,
    connections: o.connections,
    duration: o.durationS,
    timeout: 10,
    excludeErrorStats: false,
    // Its correction assumes an interval of ceil(1/rate) ms, i.e. 1 ms for any rate: off.
    ...(o.rate ? { overallRate: o.rate, ignoreCoordinatedOmission: true } : {}),
    requests: [
      {
        method: target.request.method,
        path: target.request.path,
        headers: target.request.headers,
        body: target.request.body,
        ...(target.vary
          ? {
              setupRequest: (req: Record<string, unknown>) => {
                const next = buildRequest(target, counter++);
                return { ...req, method: next.method, path: next.path, headers: next.headers, body: next.body };
              },
            }
          : {}),
      },
    ],
  } as autocannon.Options);
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    received++;
    latencies.push(responseTime);
    statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
  });
  const done = new Promise<LoadResult>((resolve, reject) => {
    // The instance is also a thenable: bad options and run errors reject it.
    (instance as unknown as PromiseLike<autocannon.Result>).then((result) => {
      const durationS = (performance.now() - started) / 1000;
      const { ok, errors, rateLimited } = tally(statusCounts);
      const transportErrors = result.errors + result.timeouts;
      resolve({
        mode: o.rate ? 'autocannon-rate' : 'closed',
        connections: o.connections,
        targetRate: o.rate,
        durationS: Math.round(durationS * 100) / 100,
        responses: received,
        rps: Math.round(received / durationS),
        okRps: Math.round(ok / durationS),
        latencyMs: summarize(latencies),
        statusCounts,
        errors: errors + transportErrors,
        rateLimited,
        transportErrors,
      });
    }, reject);
  });
  return { responses: () => received, done };
}

/** Open loop at a fixed smooth rate: request i is due at start + i/rate seconds. */
export function runPaced(target: LoadTarget, o: { rate: number; durationS: number; maxSockets?: number; timeoutMs?: number }): LoadHandle {
  const agent = new Agent({ keepAlive: true, maxSockets: o.maxSockets ?? 256 });
  const url = new URL(target.base);
  const total = Math.round(o.rate * o.durationS);
  const intervalMs = 1000 / o.rate;
  const latencies: number[] = [];
  const scheduled: number[] = [];
  const statusCounts: Record<string, number> = {};
  let received = 0;
  let transportErrors = 0;
  let sent = 0;
  let outstanding = 0;
  const start = performance.now();

  const done = new Promise<LoadResult>((resolve) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      agent.destroy();
      const durationS = (performance.now() - start) / 1000;
      const { ok, errors, rateLimited } = tally(statusCounts);
      resolve({
        mode: 'paced',
        targetRate: o.rate,
        durationS: Math.round(durationS * 100) / 100,
        responses: received,
        rps: Math.round(received / Math.max(o.durationS, durationS - 0.001)),
        okRps: Math.round(ok / Math.max(o.durationS, durationS - 0.001)),
        latencyMs: summarize(latencies),
        scheduledLatencyMs: summarize(scheduled),
        statusCounts,
        errors: errors + transportErrors,
        rateLimited,
        transportErrors,
      });
    };
    const settle = () => {
      outstanding--;
      if (sent >= total && outstanding === 0) finish();
    };
    const fire = (i: number, dueAt: number) => {
      const shape = buildRequest(target, i);
      const sentAt = performance.now();
      outstanding++;
      const req = httpRequest(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: shape.method,
          path: shape.path,
          headers: { ...shape.headers, ...(shape.body ? { 'content-length': Buffer.byteLength(shape.body) } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            const now = performance.now();
            received++;
            latencies.push(now - sentAt);
            scheduled.push(now - dueAt);
            statusCounts[res.statusCode ?? 0] = (statusCounts[res.statusCode ?? 0] ?? 0) + 1;
            settle();
          });
        },
      );
      req.setTimeout(o.timeoutMs ?? 10_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        transportErrors++;
        settle();
      });
      if (shape.body) req.write(shape.body);
      req.end();
    };
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor((now - start) / intervalMs) + 1);
      while (sent < due) {
        const i = sent++;
        fire(i, start + i * intervalMs);
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * intervalMs - performance.now()));
      else if (outstanding === 0) finish();
    };
    tick();
    // Bounded: whatever is still outstanding 10 s after the last send counts as an error.
    setTimeout(
      () => {
        transportErrors += outstanding;
        finish();
      },
      o.durationS * 1000 + (o.timeoutMs ?? 10_000) + 1000,
    ).unref();
  });
  return { responses: () => received, done };
}
