import request from 'supertest';
import { SHAPES, startTestService, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('GET /api/ready and /api/status (%s)', (shape) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(shape, {}, { worker: false });
  });
  afterAll(() => service.stop());

  it('ready: 200 without a key; status names each dependency and each model backend', async () => {
    const ready = await request(service.baseUrl).get('/api/ready');
    expect([ready.status, ready.headers['cache-control'], ready.body]).toEqual([200, 'no-store', { status: 'ready' }]);
    const status = await request(service.baseUrl).get('/api/status');
    expect(status.status).toBe(200);
    expect(status.headers['cache-control']).toBe('no-store');
    expect(status.body).toEqual({
      status: 'ok',
      dependencies: shape === 'production' ? { database: 'ok', redis: 'ok', storage: 'ok' } : { database: 'ok', storage: 'ok' },
      // Each model's backend as its circuit breaker sees it (docs/operating/models.md).
      models: { procedural: 'up' },
    });
  });
});

describe('a dependency down, then shutting down', () => {
  let service: TestService;
  let stopped: Promise<void> | undefined;
  beforeAll(async () => {
    // The S3 server is up, but the bucket does not exist: storage.ping() fails.
    service = await startTestService('production', { S3_BUCKET: `missing-${process.pid}` }, { worker: false });
  });
  afterAll(() => stopped ?? service.stop());

  it('stays ready while /api/status and promptpix_dependency_up say storage is down, logging it once', async () => {
    for (let i = 0; i < 5; i++) expect((await request(service.baseUrl).get('/api/ready')).body).toEqual({ status: 'ready' });
    for (let i = 0; i < 3; i++) {
      const status = await request(service.baseUrl).get('/api/status');
      expect([status.status, status.body]).toEqual([
        200,
        { status: 'degraded', dependencies: { database: 'ok', redis: 'ok', storage: 'failed' }, models: { procedural: 'up' } },
      ]);
    }
    const metrics = (await request(service.baseUrl).get('/metrics')).text;
    expect(metrics).toContain('promptpix_dependency_up{dependency="storage"} 0');
    expect(metrics).toContain('promptpix_dependency_up{dependency="database"} 1');
    expect((await request(service.baseUrl).get('/api/health')).status).toBe(200);
    // Four failed checks (three status calls, one scrape), one line: the rest wait for the next minute.
    expect(service.logs.join('').split('dependency check failed')).toHaveLength(2);
  });

  it('answers 503 once the process is shutting down', async () => {
    stopped = service.stop();
    // What a load balancer's probe sees in the moment the listener closes.
    const res = await request(service.app).get('/api/ready');
    expect([res.status, res.body]).toEqual([503, { error: 'Not ready', reason: 'shutting down' }]);
    await stopped;
  });
});
