import request from 'supertest';
import { SHAPES, startTestService, type TestService } from '@promptpix/server/testing';

/** The value of one series in a Prometheus text exposition (undefined when absent). */
function sample(body: string, series: string): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(SHAPES)('GET /metrics after some traffic (%s)', (shape) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(shape);
  });
  afterAll(() => service.stop());

  it('has HTTP series by route pattern, cache, quota, rate-limit, generation and queue series', async () => {
    const auth = (r: request.Test, key: string) => r.set('Authorization', `Bearer ${key}`);
    const one = await service.createAccount({ monthlyGenerations: 1 });
    const generate = (body: object, key = one.secretKey) => auth(request(service.baseUrl).post('/api/v1/generate'), key).send(body);

    // A fresh generation, the same again (exact cache hit), another size (derived), then out of quota.
    const fresh = await generate({ prompt: 'a paper boat on a puddle' });
    expect(fresh.status).toBe(202);
    expect((await service.waitForJob(fresh.body.jobId, one.secretKey)).status).toBe('completed');
    expect((await generate({ prompt: 'a paper boat on a puddle' })).status).toBe(202);
    const derived = await generate({ prompt: 'a paper boat on a puddle', width: 512, height: 512 });
    expect((await service.waitForJob(derived.body.jobId, one.secretKey)).status).toBe('completed');
    expect((await generate({ prompt: 'a kite over the dunes' })).status).toBe(402);

    // A rate-limited key: 30 invalid requests pass the limiter (400), the 31st is refused.
    const limited = await service.createAccount();
    for (let i = 0; i < 30; i++) expect((await generate({ prompt: '' }, limited.secretKey)).status).toBe(400);
    expect((await generate({ prompt: '' }, limited.secretKey)).status).toBe(429);
    expect((await request(service.baseUrl).get('/no/such/path')).status).toBe(404);

    const res = await request(service.baseUrl).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = res.text;

    // HTTP: by route pattern, never by raw path (no job id in any label).
    expect(sample(body, 'promptpix_http_requests_total{method="POST",route="/api/v1/generate",status="202"}')).toBe(3);
    expect(sample(body, 'promptpix_http_requests_total{method="POST",route="/api/v1/generate",status="402"}')).toBe(1);
    expect(sample(body, 'promptpix_http_requests_total{method="POST",route="/api/v1/generate",status="429"}')).toBe(1);
    expect(sample(body, 'promptpix_http_requests_total{method="GET",route="/api/v1/job/:jobId",status="200"}')).toBeGreaterThanOrEqual(2);
    expect(sample(body, 'promptpix_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(body).not.toContain(fresh.body.jobId);
    expect(sample(body, 'promptpix_http_request_duration_seconds_count{method="POST",route="/api/v1/generate",status="202"}')).toBe(3);
    expect(body).toContain('promptpix_http_request_duration_seconds_bucket{le="0.1",method="POST",route="/api/v1/generate",status="202"}');

    // Rejections, cache and generations.
    expect(sample(body, 'promptpix_rate_limit_rejections_total{route="/api/v1/generate"}')).toBe(1);
    expect(sample(body, 'promptpix_quota_rejections_total')).toBe(1);
    expect(sample(body, 'promptpix_generation_requests_total{outcome="generated"}')).toBe(1);
    expect(sample(body, 'promptpix_generation_requests_total{outcome="cached"}')).toBe(1);
    expect(sample(body, 'promptpix_generation_requests_total{outcome="derived"}')).toBe(1);
    expect(sample(body, 'promptpix_cache_hits_total{kind="exact"}')).toBe(1);
    expect(sample(body, 'promptpix_cache_hits_total{kind="derived"}')).toBe(1);
    // The in-process caches report their estimated bytes (the render cache was emptied for this
    // account when its derived image was stored; the keys used are remembered).
    expect(sample(body, 'promptpix_gateway_cache_bytes{cache="renderCache"}')).toBeGreaterThanOrEqual(0);
    expect(sample(body, 'promptpix_gateway_cache_bytes{cache="keys"}')).toBeGreaterThan(0);
    expect(sample(body, 'promptpix_gateway_cache_bytes{cache="permalinks"}')).toBe(0);
    // The in-process worker shares this instance's registry: one model call, two jobs (fresh + derived).
    expect(sample(body, 'promptpix_model_duration_seconds_count{provider="procedural",outcome="success"}')).toBe(1);
    expect(sample(body, 'promptpix_generation_duration_seconds_count{provider="procedural",outcome="success"}')).toBe(2);

    // Queue depth, read from the queue on scrape; process metrics.
    expect(sample(body, 'promptpix_queue_jobs{state="waiting"}')).toBe(0);
    expect(sample(body, 'promptpix_queue_jobs{state="active"}')).toBe(0);
    expect(sample(body, 'promptpix_queue_jobs{state="failed"}')).toBe(0);
    expect(body).toContain('process_resident_memory_bytes');
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('embedded', { METRICS_TOKEN: 'metrics-token-0123456789' }, { worker: false });
  });
  afterAll(() => service.stop());

  it('wants the bearer token', async () => {
    expect((await request(service.baseUrl).get('/metrics')).status).toBe(401);
    expect((await request(service.baseUrl).get('/metrics').set('Authorization', 'Bearer not-the-token')).status).toBe(401);
    const ok = await request(service.baseUrl).get('/metrics').set('Authorization', 'Bearer metrics-token-0123456789');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('promptpix_http_requests_total');
  });
});
