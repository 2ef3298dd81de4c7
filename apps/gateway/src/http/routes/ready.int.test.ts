import request from 'supertest';
import { SHAPES, startTestService, type TestService } from '@promptpix/server/src/test-service';

describe.each(SHAPES)('GET /api/ready (%s)', (shape) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(shape, {}, { worker: false });
  });
  afterAll(() => service.stop());

  it('answers 200 without a key when the database, Redis and storage answer', async () => {
    const res = await request(service.baseUrl).get('/api/ready');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      status: 'ready',
      checks: shape === 'production' ? { database: 'ok', redis: 'ok', storage: 'ok' } : { database: 'ok', storage: 'ok' },
      // Each model's backend as its circuit breaker sees it (docs/operating/models.md).
      models: { procedural: 'up' },
    });
  });
});

describe('GET /api/ready with a dependency down', () => {
  let service: TestService;
  beforeAll(async () => {
    // The S3 server is up, but the bucket does not exist: storage.ping() fails.
    service = await startTestService('production', { S3_BUCKET: `missing-${process.pid}` }, { worker: false });
  });
  afterAll(() => service.stop());

  it('answers 503 naming the failing check, while liveness stays 200', async () => {
    const res = await request(service.baseUrl).get('/api/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'Not ready', checks: { database: 'ok', redis: 'ok', storage: 'failed' }, models: { procedural: 'up' } });
    expect((await request(service.baseUrl).get('/api/health')).status).toBe(200);
    expect(service.logs.join('')).toContain('readiness check failed');
  });
});
