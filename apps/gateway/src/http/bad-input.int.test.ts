/**
 * Bad input, tried at random and at the boundaries: never a 500, always the spec's 400 shape
 * naming the field.
 */
import fc from 'fast-check';
import request from 'supertest';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

const GENERATE_FIELDS = ['prompt', 'style', 'strength', 'character', 'width', 'height', 'format', 'ageBuckets', 'mode'];

describe('bad input never yields a 500', () => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    // No worker: accepted jobs just wait. An enterprise plan keeps rate limits out of the way.
    service = await startTestService('embedded', { RENDER_WAIT_MS: '200' }, { worker: false });
    account = await service.createAccount({ plan: 'enterprise', monthlyGenerations: 100000 });
  });
  afterAll(() => service.stop());

  const post = (path: string, body: string | object, key = account.secretKey) =>
    request(service.baseUrl)
      .post(path)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  const expectSpecShape = (res: request.Response, allowed: number[]) => {
    expect(allowed).toContain(res.status);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    if (res.status === 400) {
      if (res.body.error === 'Invalid request') {
        expect(res.body.details).toEqual({ formErrors: expect.any(Array), fieldErrors: expect.any(Object) });
      } else expect(res.body).toEqual({ error: 'Invalid JSON' });
    }
  };

  it('random JSON bodies on generate, embed and analytics', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 4 }),
        fc.constantFrom('/api/v1/generate', '/api/v1/embed/resolve', '/api/v1/analytics/events'),
        async (body, path) => {
          const res = await post(path, JSON.stringify(body));
          expectSpecShape(res, [200, 202, 400, 404]);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('near-valid generate bodies: every 400 names only real fields', async () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer({ min: -5000, max: 5000 }),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            prompt: fc.oneof(fc.string({ minLength: 0, maxLength: 30, unit: 'binary' }), value),
            width: fc.oneof(fc.integer({ min: 0, max: 4096 }), value),
            height: fc.oneof(fc.constantFrom(256, 1024, 2048), value),
            strength: fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), value),
            format: fc.oneof(fc.constantFrom('png', 'jpeg', 'webp', 'gif'), value),
            ageBuckets: fc.oneof(fc.subarray(['kids', 'bigkids', 'adults', 'teens']), value),
            mode: fc.oneof(fc.constantFrom('generate', 'fast'), value),
            style: fc.oneof(fc.constantFrom('watercolor', 'cinematic', 'nope'), value),
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const res = await post('/api/v1/generate', body);
          expectSpecShape(res, [202, 400, 403]);
          if (res.status === 400) {
            const named = Object.keys(res.body.details.fieldErrors);
            expect(named.length + res.body.details.formErrors.length).toBeGreaterThan(0);
            for (const field of named) expect(GENERATE_FIELDS).toContain(field);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it.each([
    [{ prompt: '' }, 400, 'prompt'],
    [{ prompt: 'p' }, 202, null],
    [{ prompt: 'p'.repeat(2000) }, 202, null],
    [{ prompt: 'p'.repeat(2001) }, 400, 'prompt'],
    [{ prompt: 'p', width: 255 }, 400, 'width'],
    [{ prompt: 'p', width: 256 }, 202, null],
    [{ prompt: 'p', width: 257 }, 400, 'width'],
    [{ prompt: 'p', width: 2048 }, 202, null],
    [{ prompt: 'p', width: 2049 }, 400, 'width'],
    [{ prompt: 'p', height: 1e308 }, 400, 'height'],
    [{ prompt: 'nul \u0000 byte' }, 400, 'prompt'],
    [{ prompt: '🦊 日本語の絵 ×✓ \u202e rtl' }, 202, null],
    [{ prompt: 'p', style: 'x'.repeat(201) }, 400, 'style'],
    [{ prompt: 'p', width: '1024' }, 400, 'width'],
    [{ prompt: 'p', ageBuckets: 'kids' }, 400, 'ageBuckets'],
    [{ prompt: 'p', __proto__: { admin: true }, constructor: 'x' }, 202, null],
  ])('generate boundary %j → %d', async (body, status, field) => {
    const res = await post('/api/v1/generate', body);
    expect(res.status).toBe(status);
    if (field) expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it.each([
    ['50 elements', 50, 200],
    ['51 elements', 51, 400],
  ])('embed with %s → %d', async (_name, count, status) => {
    const res = await post('/api/v1/embed/resolve', { elements: Array.from({ length: count }, (_, i) => ({ id: `e${i}`, shortcut: 'none' })) });
    expect(res.status).toBe(status);
  });

  it.each([
    ['100 events', 100, 202],
    ['101 events', 101, 400],
  ])('analytics with %s → %d', async (_name, count, status) => {
    expect((await post('/api/v1/analytics/events', { events: Array.from({ length: count }, () => ({ eventType: 'click' })) })).status).toBe(status);
  });

  it('NUL bytes in embed prompts and analytics metadata are a 400, not a database error', async () => {
    const embed = await post('/api/v1/embed/resolve', { elements: [{ id: 'a', prompt: 'x\u0000y' }] });
    expect(embed.status).toBe(400);
    const analytics = await post('/api/v1/analytics/events', { events: [{ eventType: 'click', metadata: { note: 'a\u0000b' } }] });
    expect(analytics.status).toBe(400);
  });

  it.each([
    ['very deep JSON', '['.repeat(100_000) + ']'.repeat(100_000)],
    ['truncated JSON', '{"prompt": "x"'],
    ['duplicate keys', '{"prompt": "", "prompt": "second wins"}'],
    ['a JSON string', '"just a string"'],
    ['a number', '42'],
    ['null', 'null'],
    ['binary garbage', '\u00ff\u00fe\u0000\u0001'],
  ])('%s on generate', async (_name, raw) => {
    const res = await post('/api/v1/generate', raw);
    expect([202, 400, 413]).toContain(res.status);
    expect(res.body.error === undefined || typeof res.body.error === 'string').toBe(true);
  });

  it('a 10 MB body is a 413 JSON error', async () => {
    const res = await post('/api/v1/generate', JSON.stringify({ prompt: 'x', pad: 'x'.repeat(10 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Request body too large' });
  });

  it('oversized headers are refused by the HTTP layer, not a 500', async () => {
    const res = await request(service.baseUrl).get('/api/health').set('X-Filler', 'x'.repeat(20_000));
    expect(res.status).toBe(431);
  });

  it.each([
    '/api/v1/job/..%2F..%2Fetc%2Fpasswd',
    "/api/v1/job/1'%20OR%20'1'='1",
    '/api/v1/image/%00',
    '/api/v1/image/..%5C..%5Cwindows',
    '/api/img/acme/..%2F..%2Fadmin',
    '/api/img/%3Cscript%3E/x',
    '/api/img/a%00b/x',
    '/api/v1/job/a%00b',
    '/api/v1/job/a%00b/events',
    '/files/..%2F..%2Fetc%2Fpasswd',
  ])('path payload %s is a 4xx', async (path) => {
    const res = await request(service.baseUrl).get(path).set('Authorization', `Bearer ${account.secretKey}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('random query strings on render never yield a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('prompt', 'style', 'width', 'height', 'format', 'age', 'character', 'x'), fc.string({ maxLength: 20 })),
        async (query) => {
          const qs = new URLSearchParams({ ...query, key: account.secretKey }).toString();
          const res = await request(service.baseUrl).get(`/api/v1/render?${qs}`).redirects(0);
          // A valid request waits for its image; with no worker that is the documented 503 + jobId.
          if (res.status === 503) expect(res.body).toEqual({ error: expect.any(String), jobId: expect.any(String) });
          else expect(res.status).toBeLessThan(500);
        },
      ),
      // Render holds a fresh generation; with no worker it answers 503 after RENDER_WAIT_MS.
      { numRuns: 40 },
    );
  });
});
