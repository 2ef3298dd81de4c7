/**
 * Operations surface of a process: Prometheus metrics (prom-client) and the small HTTP server a
 * worker exposes on METRICS_PORT (/metrics, /api/health, /api/ready, /api/status).
 *
 * Every Infrastructure gets a registry of its own (never prom-client's global one), so tests that
 * start several services in one process never share series. The gateway and the worker each add
 * their series through the wrappers below; the composition roots decide what is wrapped.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  AppError,
  isJobDeferred,
  type BackendHealth,
  type EventRecorder,
  type GenerationJobHandler,
  type GenerationService,
  type ImageModel,
  type QueueDepth,
} from '@promptpix/core';
import { statusAnswer, type DependencyStatus } from './dependency-answer';
import { withTimeout } from '../process/timeout';
import { readinessAnswer, type Lifecycle } from '../process/lifecycle';
import { replaceScrapedGauge } from './scraped-gauge';
import type { HttpLimits } from '../process/http-server';
import { listen, type RunningServer } from '../process/process';

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

export interface Metrics {
  readonly registry: Registry;
  /** `promptpix_http_requests_total{method,route,status}`; route is the Express pattern. */
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly rateLimitRejections: Counter<'route'>;
  readonly quotaRejections: Counter;
  /** Generation starts by outcome: cached, derived, joined, generated. */
  readonly generationRequests: Counter<'outcome'>;
  /** Render-cache hits from every path (generate, render, embed): exact, derived. */
  readonly cacheHits: Counter<'kind'>;
  /** One job attempt in a worker, model + encode + upload + records. */
  readonly generationDuration: Histogram<'provider' | 'outcome'>;
  /** Jobs that failed for good (attempts exhausted or a permanent error). */
  readonly generationFailures: Counter<'provider'>;
  /** One model call: the latency L in the scaling rule. */
  readonly modelDuration: Histogram<'provider' | 'outcome'>;
  /** Model calls that crossed their backend's slow-call threshold (each counted by the breaker as bad). */
  readonly modelSlowCalls: Counter<'model'>;
  /** Jobs put back in the queue because their backend had as many calls in flight as it may. */
  readonly modelDeferrals: Counter<'model'>;
  /** The Prometheus text exposition, with queue depth and process metrics read now. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsOptions {
  /** Read on every scrape into `promptpix_queue_jobs{state}`. */
  queueDepth?: () => Promise<QueueDepth>;
  /** How long a scrape waits for the queue depth before leaving the gauge empty (default 2000 ms). */
  queueDepthTimeoutMs?: number;
  /** Read on every scrape into `promptpix_model_backend{model,state}` (the circuit breakers). */
  modelHealth?: () => Promise<Record<string, BackendHealth>>;
  /** The embedded database thread's V8 heap and external memory (PGlite's), read on scrape. */
  databaseThreadMemory?: () => Promise<{ heapTotal: number; heapUsed: number; external: number } | undefined>;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const httpLabels = ['method', 'route', 'status'] as const;
  const queueDepth = options.queueDepth;
  const queueTimeoutMs = options.queueDepthTimeoutMs ?? 2000;

  // One read of the queue per scrape, shared by its gauges (prom-client collects them at once).
  let depthRead: Promise<QueueDepth> | null = null;
  const readDepth = (read: () => Promise<QueueDepth>) => {
    depthRead ??= withTimeout(read(), queueTimeoutMs).finally(() => {
      depthRead = null;
    });
    return depthRead;
  };
  /** A gauge set from the queue's depth; left without samples when the queue does not answer, so an outage differs from an empty queue. */
  const queueGauge = (name: string, help: string, labelNames: readonly string[], set: (gauge: Gauge<string>, depth: QueueDepth) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        if (!queueDepth) return;
        try {
          set(this, await readDepth(queueDepth));
        } catch {
          // Queue unreachable: no samples.
        }
      },
    });
  queueGauge(
    'promptpix_queue_jobs',
    'Generation jobs in the queue by state (read from the queue on scrape; every process reports the same queue)',
    ['state'],
    (gauge, depth) => {
      for (const state of ['waiting', 'active', 'delayed', 'failed'] as const) gauge.set({ state }, depth[state]);
    },
  );
  // Labelled by queue so that an unreachable queue leaves no sample (an unlabelled gauge always shows 0).
  queueGauge('promptpix_queue_accounts_waiting', 'Accounts with at least one job waiting (each takes its turn in the fair order)', ['queue'], (gauge, depth) =>
    gauge.set({ queue: 'generation' }, depth.groupsWaiting),
  );
  queueGauge('promptpix_queue_largest_account_backlog', 'The most jobs one account has waiting', ['queue'], (gauge, depth) =>
    gauge.set({ queue: 'generation' }, depth.largestGroupBacklog),
  );

  const modelHealth = options.modelHealth;
  if (modelHealth) {
    new Gauge({
      name: 'promptpix_model_backend',
      help: "Each model's backend as its circuit breaker sees it: 1 on the state it is in (up, down: failing fast, probing: one trial job may run)",
      labelNames: ['model', 'state'] as const,
      registers,
      async collect() {
        this.reset();
        try {
          const health = await withTimeout(modelHealth(), queueTimeoutMs);
          for (const [model, current] of Object.entries(health))
            for (const state of ['up', 'down', 'probing'] as const) this.set({ model, state }, current === state ? 1 : 0);
        } catch {
          // Breaker store unreachable: no samples rather than a guess.
        }
      },
    });
  }

  const databaseThreadMemory = options.databaseThreadMemory;
  if (databaseThreadMemory) {
    new Gauge({
      name: 'promptpix_database_thread_memory_bytes',
      help: "The embedded database thread's memory: its V8 heap (total, used) and external (PGlite's WebAssembly memory); part of the process's RSS, not of nodejs_heap_size_* or nodejs_external_memory_bytes",
      labelNames: ['kind'] as const,
      registers,
      async collect() {
        this.reset();
        const memory = await withTimeout(databaseThreadMemory(), queueTimeoutMs).catch(() => undefined);
        if (!memory) return;
        this.set({ kind: 'heap_total' }, memory.heapTotal);
        this.set({ kind: 'heap_used' }, memory.heapUsed);
        this.set({ kind: 'external' }, memory.external);
      },
    });
  }

  // Process metrics (CPU, memory, event loop lag, GC) start with the first scrape, so instances
  // that are never scraped (most tests) start no observers.
  let processMetrics = false;

  return {
    registry,
    httpRequests: new Counter({ name: 'promptpix_http_requests_total', help: 'HTTP requests by route pattern and status', labelNames: httpLabels, registers }),
    httpDuration: new Histogram({
      name: 'promptpix_http_request_duration_seconds',
      help: 'HTTP request latency by route pattern and status',
      labelNames: httpLabels,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    rateLimitRejections: new Counter({
      name: 'promptpix_rate_limit_rejections_total',
      help: 'Requests refused by the per-key rate limit (429)',
      labelNames: ['route'] as const,
      registers,
    }),
    quotaRejections: new Counter({
      name: 'promptpix_quota_rejections_total',
      help: 'Fresh generations refused because the monthly quota is used up',
      registers,
    }),
    generationRequests: new Counter({
      name: 'promptpix_generation_requests_total',
      help: 'Generation starts by outcome (cached, derived, joined, generated)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    cacheHits: new Counter({
      name: 'promptpix_cache_hits_total',
      help: 'Render-cache hits (exact image, or a derived size/format)',
      labelNames: ['kind'] as const,
      registers,
    }),
    generationDuration: new Histogram({
      name: 'promptpix_generation_duration_seconds',
      help: 'Duration of one generation job attempt in a worker',
      labelNames: ['provider', 'outcome'] as const,
      buckets: JOB_BUCKETS,
      registers,
    }),
    generationFailures: new Counter({
      name: 'promptpix_generation_failures_total',
      help: 'Generation jobs that failed for good',
      labelNames: ['provider'] as const,
      registers,
    }),
    modelDuration: new Histogram({
      name: 'promptpix_model_duration_seconds',
      help: 'Duration of one image model call',
      labelNames: ['provider', 'outcome'] as const,
      buckets: JOB_BUCKETS,
      registers,
    }),
    modelSlowCalls: new Counter({
      name: 'promptpix_model_slow_calls_total',
      help: "Model calls still in flight past their backend's slow-call threshold (the breaker counts each as bad)",
      labelNames: ['model'] as const,
      registers,
    }),
    modelDeferrals: new Counter({
      name: 'promptpix_model_deferrals_total',
      help: 'Jobs put back in the queue for a while because their backend had as many calls in flight as it may (its bulkhead)',
      labelNames: ['model'] as const,
      registers,
    }),
    async scrape() {
      if (!processMetrics) {
        processMetrics = true;
        collectDefaultMetrics({ register: registry });
      }
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/**
 * `promptpix_gateway_cache_bytes{cache}`: the estimated bytes each in-process cache holds, read on
 * scrape. Each is bounded by its own budget (docs/performance.md, "The gateway").
 */
export function reportCacheBytes(metrics: Metrics, caches: Record<string, () => number>): void {
  replaceScrapedGauge(metrics.registry, {
    name: 'promptpix_gateway_cache_bytes',
    help: 'Estimated bytes held by each in-process cache of the gateway (bounded by its byte budget)',
    labelNames: ['cache'] as const,
    collect() {
      for (const [cache, bytes] of Object.entries(caches)) this.set({ cache }, bytes());
    },
  });
}

/** `promptpix_model_calls_in_flight{model}`: this worker process's calls in flight per backend (its bulkhead), read on scrape. */
export function reportCallsInFlight(metrics: Metrics, inFlight: () => Record<string, number>, models: readonly string[]): void {
  replaceScrapedGauge(metrics.registry, {
    name: 'promptpix_model_calls_in_flight',
    help: "This worker process's model calls in flight, per model (each backend's bulkhead limits them)",
    labelNames: ['model'] as const,
    collect() {
      const now = inFlight();
      for (const model of models) this.set({ model }, now[model] ?? 0);
    },
  });
}

const seconds = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9;

/** Counts every render-cache hit the service records as a `cache_hit` event. */
export function countCacheHits(events: EventRecorder, metrics: Metrics): EventRecorder {
  // Bound once: an embed batch counts up to 50 hits, and inc(labels) hashes the labels each time.
  const derivedHits = metrics.cacheHits.labels({ kind: 'derived' });
  const exactHits = metrics.cacheHits.labels({ kind: 'exact' });
  return {
    ...events,
    record(event) {
      if (event.eventType === 'cache_hit') (event.metadata?.derived === true ? derivedHits : exactHits).inc();
      events.record(event);
    },
    flush: () => events.flush(),
    close: () => events.close(),
  };
}

/** Counts generation starts by outcome, and quota rejections (generate, render and embed alike). */
export function instrumentGenerations(metrics: Metrics, service: GenerationService): GenerationService {
  const observe = async <T extends { outcome: string }>(started: Promise<T>): Promise<T> => {
    try {
      const result = await started;
      metrics.generationRequests.inc({ outcome: result.outcome });
      return result;
    } catch (error) {
      if (error instanceof AppError && error.kind === 'quota_exceeded') metrics.quotaRejections.inc();
      throw error;
    }
  };
  return {
    ...service,
    start: (...args) => observe(service.start(...args)),
    startWithCandidates: (...args) => observe(service.startWithCandidates(...args)),
  };
}

/** Times every model call by provider and outcome. */
export function instrumentModel(model: ImageModel, metrics: Metrics): ImageModel {
  return {
    name: model.name,
    async generate(request, signal) {
      const started = process.hrtime.bigint();
      try {
        const image = await model.generate(request, signal);
        metrics.modelDuration.observe({ provider: model.name, outcome: 'success' }, seconds(started));
        return image;
      } catch (error) {
        metrics.modelDuration.observe({ provider: model.name, outcome: 'error' }, seconds(started));
        throw error;
      }
    },
  };
}

/** Times every job attempt and counts jobs that failed for good. */
export function instrumentGenerationJobs<F extends (...args: never[]) => Promise<void>>(
  processor: { handle: GenerationJobHandler; onFinalFailure: F },
  metrics: Metrics,
  provider: string,
): { handle: GenerationJobHandler; onFinalFailure: F } {
  const onFinalFailure = ((...args: Parameters<F>) => {
    metrics.generationFailures.inc({ provider });
    return processor.onFinalFailure(...args);
  }) as F;
  return {
    async handle(payload, attempt) {
      const started = process.hrtime.bigint();
      try {
        await processor.handle(payload, attempt);
        metrics.generationDuration.observe({ provider, outcome: 'success' }, seconds(started));
      } catch (error) {
        // A job deferred for its backend's bulkhead did no work (promptpix_model_deferrals_total counts it).
        if (!isJobDeferred(error)) metrics.generationDuration.observe({ provider, outcome: 'error' }, seconds(started));
        throw error;
      }
    },
    onFinalFailure,
  };
}

// ---------------------------------------------------------------------------------------------
// /metrics protection and the worker's operations server

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when no token is configured, or the Authorization header is `Bearer <token>`. */
export function metricsAuthorized(token: string | undefined, authorization: string | undefined): boolean {
  if (!token) return true;
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  return !!match && timingSafeEqual(digest(match[1].trim()), digest(token));
}

export interface OpsServerOptions {
  port: number;
  host?: string;
  serviceName: string;
  metrics: Metrics;
  /** Bearer token required on /metrics (METRICS_TOKEN). */
  token?: string;
  /** Readiness: this process, until it starts shutting down. */
  lifecycle: Lifecycle;
  /** Dependency health (/api/status). */
  status: () => Promise<DependencyStatus>;
  /** The HTTP_* limits (defaults when unset). */
  http?: HttpLimits;
}

/**
 * The worker's HTTP surface: `GET /metrics`, `GET /api/health` (liveness: the process answers),
 * `GET /api/ready` (this process takes jobs: 503 once it is draining) and `GET /api/status`
 * (database, Redis and storage as seen from here). Plain node:http, no Express.
 */
export function startOpsServer(o: OpsServerOptions): Promise<RunningServer> {
  const send = (res: ServerResponse, status: number, body: string, contentType = 'application/json; charset=utf-8') => {
    res.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store' }).end(body);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, JSON.stringify({ error: 'Method not allowed' }));
    switch (path) {
      case '/api/health':
        return send(res, 200, JSON.stringify({ status: 'ok', service: o.serviceName, timestamp: new Date().toISOString() }));
      case '/api/ready': {
        const answer = readinessAnswer(o.lifecycle);
        return send(res, answer.status, JSON.stringify(answer.body));
      }
      case '/api/status': {
        const answer = statusAnswer(await o.status());
        return send(res, answer.status, JSON.stringify(answer.body));
      }
      case '/metrics': {
        if (!metricsAuthorized(o.token, req.headers.authorization)) return send(res, 401, JSON.stringify({ error: 'Unauthorized' }));
        const { contentType, body } = await o.metrics.scrape();
        return send(res, 200, body, contentType);
      }
      default:
        return send(res, 404, JSON.stringify({ error: 'Not found' }));
    }
  };
  return listen(
    (req, res) =>
      void handle(req, res).catch(() => {
        if (!res.headersSent) send(res, 500, JSON.stringify({ error: 'Internal server error' }));
        else res.end();
      }),
    o.port,
    o.host,
    o.http,
  );
}
