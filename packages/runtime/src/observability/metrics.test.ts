import { AppError, type EventRecorder, type GenerationService, type ImageModel, type QueueDepth } from '@promptpix/core';
import { dependencyCheck } from './dependency-status';
import { createLifecycle } from '../process/lifecycle';
import { countCacheHits, createMetrics, instrumentGenerationJobs, instrumentGenerations, instrumentModel, metricsAuthorized, startOpsServer } from './metrics';

const text = async (metrics: ReturnType<typeof createMetrics>) => (await metrics.scrape()).body;

describe('metrics', () => {
  it('keeps one registry per instance', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.httpRequests.inc({ method: 'GET', route: '/api/health', status: '200' });
    expect(await text(a)).toContain('promptpix_http_requests_total{method="GET",route="/api/health",status="200"} 1');
    expect(await text(b)).not.toContain('route="/api/health"');
  });

  it('reads the queue depth on every scrape, and leaves the gauge empty when the queue does not answer', async () => {
    let reads = 0;
    let depth: () => Promise<QueueDepth> = async () => {
      reads++;
      return { waiting: 7, active: 3, delayed: 1, failed: 2, groupsWaiting: 2, largestGroupBacklog: 6 };
    };
    const metrics = createMetrics({ queueDepth: () => depth(), queueDepthTimeoutMs: 50 });
    const first = await text(metrics);
    expect(first).toContain('promptpix_queue_jobs{state="waiting"} 7');
    expect(first).toContain('promptpix_queue_jobs{state="active"} 3');
    expect(first).toContain('promptpix_queue_jobs{state="failed"} 2');
    expect(first).toContain('promptpix_queue_accounts_waiting{queue="generation"} 2');
    expect(first).toContain('promptpix_queue_largest_account_backlog{queue="generation"} 6');
    // One read of the queue per scrape, whatever the number of gauges.
    expect(reads).toBe(1);
    depth = () => new Promise(() => undefined);
    expect(await text(metrics)).not.toMatch(/promptpix_queue_\w+\{/);
    depth = async () => {
      throw new Error('redis down');
    };
    expect(await text(metrics)).not.toMatch(/promptpix_queue_\w+\{/);
  });

  it("reports the embedded database thread's memory when there is one, and nothing once it has stopped", async () => {
    let memory: { heapTotal: number; heapUsed: number; external: number } | undefined = { heapTotal: 30e6, heapUsed: 12e6, external: 139e6 };
    const metrics = createMetrics({ databaseThreadMemory: async () => memory });
    const first = await text(metrics);
    expect(first).toContain('promptpix_database_thread_memory_bytes{kind="heap_total"} 30000000');
    expect(first).toContain('promptpix_database_thread_memory_bytes{kind="heap_used"} 12000000');
    expect(first).toContain('promptpix_database_thread_memory_bytes{kind="external"} 139000000');
    memory = undefined;
    expect(await text(metrics)).not.toContain('promptpix_database_thread_memory_bytes{');
    expect(await text(createMetrics())).not.toContain('promptpix_database_thread_memory_bytes');
  });

  it('adds process metrics from the first scrape on', async () => {
    const metrics = createMetrics();
    expect(await text(metrics)).toContain('process_cpu_user_seconds_total');
  });

  it('counts generation outcomes and quota rejections', async () => {
    const metrics = createMetrics();
    const outcomes = ['cached', 'generated', 'generated'] as const;
    let call = 0;
    const service = {
      start: async () => {
        if (call === outcomes.length) throw new AppError('quota_exceeded', 'Generation quota exceeded');
        return { outcome: outcomes[call++] };
      },
      startWithCandidates: async () => {
        throw new AppError('unavailable', 'Service unavailable');
      },
    } as unknown as GenerationService;
    const wrapped = instrumentGenerations(metrics, service);
    for (let i = 0; i < 3; i++) await wrapped.start({} as never, {} as never);
    await expect(wrapped.start({} as never, {} as never)).rejects.toThrow('quota');
    await expect(wrapped.startWithCandidates({} as never, {} as never, [])).rejects.toThrow('unavailable');
    const body = await text(metrics);
    expect(body).toContain('promptpix_generation_requests_total{outcome="cached"} 1');
    expect(body).toContain('promptpix_generation_requests_total{outcome="generated"} 2');
    expect(body).toContain('promptpix_quota_rejections_total 1');
  });

  it('counts cache hits from the recorded events and passes every event on', async () => {
    const metrics = createMetrics();
    const recorded: string[] = [];
    const events: EventRecorder = { record: (e) => void recorded.push(e.eventType), flush: async () => undefined, close: async () => undefined };
    const counted = countCacheHits(events, metrics);
    counted.record({ accountId: 'a', eventType: 'cache_hit', metadata: { jobId: 'j' } });
    counted.record({ accountId: 'a', eventType: 'cache_hit', metadata: { jobId: 'j', derived: true } });
    counted.record({ accountId: 'a', eventType: 'view' });
    expect(recorded).toEqual(['cache_hit', 'cache_hit', 'view']);
    const body = await text(metrics);
    expect(body).toContain('promptpix_cache_hits_total{kind="exact"} 1');
    expect(body).toContain('promptpix_cache_hits_total{kind="derived"} 1');
  });

  it('times model calls and job attempts by provider and counts final failures', async () => {
    const metrics = createMetrics();
    let fail = false;
    const model: ImageModel = {
      name: 'fake',
      generate: async () => {
        if (fail) throw new Error('model down');
        return { data: Buffer.alloc(1), width: 1, height: 1 };
      },
    };
    const timed = instrumentModel(model, metrics);
    expect(timed.name).toBe('fake');
    await timed.generate({ prompt: 'p', strength: 1, seed: 1, width: 1, height: 1 });
    fail = true;
    await expect(timed.generate({ prompt: 'p', strength: 1, seed: 1, width: 1, height: 1 })).rejects.toThrow('model down');

    const finalFailures: string[] = [];
    const jobs = instrumentGenerationJobs(
      {
        handle: async (payload) => {
          if (payload.jobId === 'bad') throw new Error('boom');
        },
        onFinalFailure: async (payload: { jobId: string }) => void finalFailures.push(payload.jobId),
      },
      metrics,
      'fake',
    );
    await jobs.handle({ v: 1, jobId: 'good' }, { attempt: 1, maxAttempts: 3 });
    await expect(jobs.handle({ v: 1, jobId: 'bad' }, { attempt: 1, maxAttempts: 3 })).rejects.toThrow('boom');
    await jobs.onFinalFailure({ jobId: 'bad' });
    expect(finalFailures).toEqual(['bad']);

    const body = await text(metrics);
    expect(body).toContain('promptpix_model_duration_seconds_count{provider="fake",outcome="success"} 1');
    expect(body).toContain('promptpix_model_duration_seconds_count{provider="fake",outcome="error"} 1');
    expect(body).toContain('promptpix_generation_duration_seconds_count{provider="fake",outcome="success"} 1');
    expect(body).toContain('promptpix_generation_duration_seconds_count{provider="fake",outcome="error"} 1');
    expect(body).toContain('promptpix_generation_failures_total{provider="fake"} 1');
  });
});

describe('metrics token', () => {
  it('lets everything through without a token, and only the bearer of the token with one', () => {
    expect(metricsAuthorized(undefined, undefined)).toBe(true);
    expect(metricsAuthorized('metrics-token-0123456789', undefined)).toBe(false);
    expect(metricsAuthorized('metrics-token-0123456789', 'Bearer wrong')).toBe(false);
    expect(metricsAuthorized('metrics-token-0123456789', 'Basic metrics-token-0123456789')).toBe(false);
    expect(metricsAuthorized('metrics-token-0123456789', 'Bearer metrics-token-0123456789')).toBe(true);
  });
});

describe('operations server (worker)', () => {
  it('answers health, readiness (503 once draining), dependency status and metrics (behind the token), and 404 elsewhere', async () => {
    const metrics = createMetrics();
    metrics.generationFailures.inc({ provider: 'procedural' });
    let redisUp = true;
    const lifecycle = createLifecycle();
    const server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      serviceName: 'promptpix-worker',
      metrics,
      token: 'metrics-token-0123456789',
      lifecycle,
      status: dependencyCheck({ database: async () => 1, redis: () => (redisUp ? Promise.resolve() : new Promise(() => undefined)) }, { timeoutMs: 50 }),
    });
    const base = `http://127.0.0.1:${server.port}`;
    try {
      const health = await fetch(`${base}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', service: 'promptpix-worker' });

      expect(await (await fetch(`${base}/api/status`)).json()).toEqual({ status: 'ok', dependencies: { database: 'ok', redis: 'ok' } });
      redisUp = false;
      // A dependency down is a status, not unreadiness.
      const ready = await fetch(`${base}/api/ready`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
      const status = await fetch(`${base}/api/status`);
      expect([status.status, await status.json()]).toEqual([200, { status: 'degraded', dependencies: { database: 'ok', redis: 'timeout' } }]);
      lifecycle.stopping();
      const draining = await fetch(`${base}/api/ready`);
      expect([draining.status, await draining.json()]).toEqual([503, { error: 'Not ready', reason: 'shutting down' }]);

      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const scraped = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } });
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get('content-type')).toContain('text/plain');
      expect(await scraped.text()).toContain('promptpix_generation_failures_total{provider="procedural"} 1');

      expect((await fetch(`${base}/nope`)).status).toBe(404);
    } finally {
      await server.stop(1000);
    }
  });
});
