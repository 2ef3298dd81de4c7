/**
 * The OpenAPI document against the running service (embedded shape): every registered route is
 * documented and every documented route exists; each documented key requirement is what the
 * service enforces; and responses recorded from the service, across the statuses callers meet,
 * match the documented status, content type, headers and body schema.
 */
import { hostname } from 'node:os';
import type { Express } from 'express';
import sharp from 'sharp';
import { ErrorMessages } from '@promptpix/contracts';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { expressToOpenApiPath, methodsOf } from './document-walk';
import { buildOpenApiDocument, type OpenApiDocument } from './document';
import { createResponseValidator } from './response-validator';

jest.setTimeout(120_000);

let service: TestService;
let account: TestAccount;
let doc: OpenApiDocument;
let check: ReturnType<typeof createResponseValidator>;
const problems: string[] = [];
const seen = new Set<string>();

interface CallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  /** A multipart/form-data body (fetch sets its content type). */
  form?: FormData;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

/** Calls the service, checks the answer against the document, and returns it. */
async function call(method: string, template: string, params: Record<string, string> = {}, o: CallOptions = {}) {
  const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? `missing-${name}`));
  const url = new URL(service.baseUrl + path);
  for (const [k, v] of Object.entries(o.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  let body: string | undefined = o.rawBody;
  if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(url, { method: method.toUpperCase(), headers, body: o.form ?? body, redirect: 'manual' });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').startsWith('application/json');
  const parsed = json && text ? JSON.parse(text) : text;
  problems.push(...check({ method, path: template, status: response.status, headers: response.headers, body: parsed }));
  seen.add(`${method.toUpperCase()} ${template} ${response.status}`);
  return { status: response.status, headers: response.headers, body: parsed as any };
}

/** Every (method, path) the Express app answers, in OpenAPI form; `use` mounts such as /files become "<mount>/*". */
function registeredRoutes(app: Express): string[] {
  const routes: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) for (const method of Object.keys(layer.route.methods)) routes.push(`${method.toUpperCase()} ${expressToOpenApiPath(layer.route.path)}`);
      else if (layer.handle?.stack) walk(layer.handle.stack);
      else if (layer.rawPath && layer.rawPath !== '/' && ['serveStatic', 'servePublicFiles'].includes(layer.name)) routes.push(`GET ${layer.rawPath}/*`);
    }
  };
  walk((app as any).router.stack);
  return routes;
}

/** The document's operations in the same form: the static mount and the one preflight route stand for their paths. */
const documentedRoutes = () => [
  ...new Set(
    Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      methodsOf(item).map((m) => {
        if (m === 'options' && path.startsWith('/api/v1/')) return 'OPTIONS /api/v1/*splat';
        return `${m.toUpperCase()} ${path.replace(/^\/files\/\{file\}$/, '/files/*')}`;
      }),
    ),
  ),
];

beforeAll(async () => {
  service = await startTestService('embedded', { MODEL_LATENCY_MS: '600', RENDER_WAIT_MS: '200', LIBRARY_DELAY_SECONDS: '0' });
  account = await service.createAccount();
  doc = buildOpenApiDocument({ serverUrl: service.baseUrl, version: 'test' });
  check = createResponseValidator(doc);
});
afterAll(() => service.stop());

describe('OpenAPI document and routes', () => {
  it('documents every route the gateway registers, and every documented route is registered', () => {
    // The dashboard's JSON API and pages belong to the dashboard app (packages/contracts/src/dashboard.ts), not to the public API.
    const registered = registeredRoutes(service.app)
      .filter((route) => !/^[A-Z]+ \/dashboard(\/|$)/.test(route))
      .sort();
    const documented = documentedRoutes().sort();
    expect(registered.length).toBeGreaterThan(30);
    expect(documented).toEqual(registered);
    // The preflight route answers every /api/v1/ path, and each of them documents it.
    for (const [path, item] of Object.entries(doc.paths ?? {}))
      if (path.startsWith('/api/v1/')) expect({ path, options: methodsOf(item).includes('options') }).toEqual({ path, options: true });
  });

  it('serves the document at /api/openapi.json, to any origin', async () => {
    const served = await call('get', '/api/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('access-control-allow-origin')).toBe('*');
    expect(served.body).toEqual(JSON.parse(JSON.stringify({ ...doc, info: { ...doc.info, version: served.body.info.version } })));
    expect(served.body.info.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('enforces the key each operation documents: no key → 401; a publishable key on a secret-only operation → 403', async () => {
    const keyed = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      methodsOf(item)
        .map((m) => ({ m, path, security: ((item as any)[m].security ?? []) as Array<Record<string, string[]>> }))
        .filter((o) => o.security.some((s) => 'secretKey' in s || 'adminToken' in s)),
    );
    expect(keyed.length).toBeGreaterThan(20);
    for (const { m, path, security } of keyed) {
      const params = { jobId: 'job-1', id: '00000000-0000-4000-8000-000000000000', handle: account.handle };
      const missing = await call(m, path, params);
      expect({ path, m, status: missing.status }).toEqual({ path, m, status: 401 });
      if (!security.some((s) => 'secretKey' in s)) continue;
      const publishable = await call(m, path, params, { key: account.publishableKey });
      // The OpenAI-compatible surface says it in OpenAI's envelope.
      const message = typeof publishable.body.error === 'object' ? publishable.body.error.message : publishable.body.error;
      const refused = publishable.status === 403 && message === ErrorMessages.publishableForbidden;
      const allowsPublishable = security.some((s) => 'publishableKey' in s);
      expect({ path, m, refused }).toEqual({ path, m, refused: !allowsPublishable });
    }
  });

  it('answers operations documented without a key, without one', async () => {
    const open = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      methodsOf(item)
        .filter((m) => ((item as any)[m].security ?? []).length === 0)
        .map((m) => ({ m, path })),
    );
    for (const { m, path } of open) {
      const answer = await call(m, path, { handle: account.handle, name: 'none', file: 'swagger-ui.css' });
      expect({ path, status: answer.status }).not.toEqual({ path, status: 401 });
    }
  });
});

describe('responses recorded from the service match the document', () => {
  it('across the statuses callers meet', async () => {
    const sk = account.secretKey;
    const pk = account.publishableKey;

    // Generation, jobs, images.
    // With a webhook the SSRF guard blocks at delivery (this machine's own name resolves to a non-public address), so the delivery log below has an entry to check.
    const started = await call(
      'post',
      '/api/v1/generate',
      {},
      { key: sk, body: { prompt: 'a lighthouse at dusk', width: 512, height: 512, format: 'png', webhookUrl: `https://${hostname()}:9/hook` } },
    );
    expect(started.status).toBe(202);
    await call('get', '/api/v1/job/{jobId}', { jobId: started.body.jobId }, { key: pk });
    const done = await service.waitForJob(started.body.jobId, sk);
    expect((await call('get', '/api/v1/job/{jobId}', { jobId: started.body.jobId }, { key: sk })).body.status).toBe('completed');
    const file = new URL(done.imageUrl).pathname.replace(/^\/files\//, '');
    expect((await call('get', '/files/{file}', { file: decodeURIComponent(file) })).status).toBe(200);
    expect((await call('get', '/api/v1/job/{jobId}', { jobId: 'no-such-job' }, { key: sk })).status).toBe(404);
    expect((await call('delete', '/api/v1/job/{jobId}', { jobId: started.body.jobId }, { key: sk })).status).toBe(409);
    const toCancel = await call('post', '/api/v1/generate', {}, { key: sk, headers: { 'cancel-after': '60' }, body: { prompt: 'a job to cancel' } });
    expect((await call('delete', '/api/v1/job/{jobId}', { jobId: toCancel.body.jobId }, { key: sk })).body.error).toBe('cancelled');
    expect([
      (await call('get', '/api/v1/job/{jobId}/events', { jobId: started.body.jobId }, { key: pk })).status,
      (await call('get', '/api/v1/job/{jobId}/events', { jobId: 'no-such-job' }, { key: pk })).status,
    ]).toEqual([200, 404]);
    expect((await call('post', '/api/v1/generate', {}, { key: sk, body: { prompt: 'x', width: 300 } })).status).toBe(400);
    const once = { key: sk, headers: { 'idempotency-key': 'k-1' }, body: { prompt: 'a lighthouse at dusk', width: 512, height: 512, format: 'png' } };
    expect((await call('post', '/api/v1/generate', {}, once)).status).toBe(202);
    expect((await call('post', '/api/v1/generate', {}, once)).headers.get('idempotent-replayed')).toBe('true');
    expect((await call('post', '/api/v1/generate', {}, { key: sk, headers: { 'idempotency-key': 'k-1' }, body: { prompt: 'another' } })).status).toBe(409);
    expect((await call('post', '/api/v1/generate', {}, { key: sk, rawBody: '{"prompt":' })).body).toEqual({ error: ErrorMessages.invalidJson });
    expect((await call('post', '/api/v1/generate', {}, { key: sk, rawBody: JSON.stringify({ prompt: 'x'.repeat(1_100_000) }) })).status).toBe(413);
    expect((await call('post', '/api/v1/generate', {}, { key: `sk_live_${'x'.repeat(40)}`, body: { prompt: 'x' } })).status).toBe(401);
    expect((await call('post', '/api/v1/generate', {}, { key: sk, body: { prompt: 'a lighthouse at dusk', mode: 'instant' } })).status).toBe(200);
    expect((await call('post', '/api/v1/generate', {}, { key: sk, body: { prompt: 'qqqq zzzz xxxx', mode: 'instant' } })).status).toBe(404);
    // A style above the plan is refused by the handler, after the rate limit counted the call.
    const abovePlan = await call('post', '/api/v1/generate', {}, { key: sk, body: { prompt: 'x', style: 'film-noir' } });
    expect([abovePlan.status, abovePlan.headers.has('x-ratelimit-remaining')]).toEqual([403, true]);
    expect(
      (await call('get', '/api/v1/job/{jobId}/events', { jobId: started.body.jobId }, { key: pk, headers: { 'last-event-id': 'completed' } })).status,
    ).toBe(204);

    const broke = await service.createAccount({ monthlyGenerations: 0 });
    expect((await call('post', '/api/v1/generate', {}, { key: broke.secretKey, body: { prompt: 'a new take' } })).status).toBe(402);
    expect((await call('get', '/api/v1/render', {}, { query: { prompt: 'a render past the quota', key: broke.secretKey } })).status).toBe(402);
    const pending = await service.createAccount({ status: 'pending' });
    expect((await call('post', '/api/v1/generate', {}, { key: pending.secretKey, body: { prompt: 'x' } })).body.code).toBe('pending_approval');
    expect((await call('get', '/api/v1/styles', {}, { key: pending.publishableKey })).body.code).toBe('pending_approval');
    expect((await call('post', '/api/v1/analytics/events', {}, { key: pending.publishableKey, body: { events: [{ eventType: 'view' }] } })).body.code).toBe(
      'pending_approval',
    );

    expect(
      (await call('get', '/api/v1/render', {}, { query: { prompt: 'a lighthouse at dusk', key: sk, width: '512', height: '512', format: 'png' } })).status,
    ).toBe(302);
    const held = await call('get', '/api/v1/render', {}, { query: { prompt: 'a slow red kite', key: sk } });
    expect(held.status).toBe(503);
    expect((await call('get', '/api/v1/render', {}, { query: { key: sk } })).status).toBe(400);

    expect((await call('get', '/api/v1/image/{id}', { id: done.imageId }, { key: sk })).status).toBe(302);
    expect((await call('get', '/api/v1/image/{id}', { id: done.imageId }, { key: sk, query: { jobId: started.body.jobId } })).status).toBe(302);
    expect((await call('get', '/api/v1/image/{id}', { id: '00000000-0000-4000-8000-000000000000' }, { key: sk })).status).toBe(404);
    expect((await call('patch', '/api/v1/image/{id}/pin', { id: done.imageId }, { key: sk })).body).toEqual({ id: done.imageId, pinned: true });
    expect((await call('delete', '/api/v1/image/{id}/pin', { id: done.imageId }, { key: sk })).body).toEqual({ id: done.imageId, pinned: false });
    expect((await call('patch', '/api/v1/image/{id}/reject', { id: '00000000-0000-4000-8000-000000000000' }, { key: sk })).status).toBe(404);

    // Styles, characters.
    expect((await call('get', '/api/v1/styles', {}, { key: pk })).status).toBe(200);
    expect((await call('get', '/api/v1/styles/public')).status).toBe(200);
    const created = await call(
      'post',
      '/admin/api/v1/accounts/{handle}/characters',
      { handle: account.handle },
      { key: 'test-admin-token-0123456789abcdef', body: { name: 'Pip', specSheet: 'a small green robot' } },
    );
    expect(created.status).toBe(201);
    expect(
      (
        await call(
          'patch',
          '/admin/api/v1/accounts/{handle}/characters/{id}',
          { handle: account.handle, id: created.body.id },
          { key: 'test-admin-token-0123456789abcdef', body: { behavior: 'lock' } },
        )
      ).status,
    ).toBe(200);
    expect((await call('get', '/api/v1/characters', {}, { key: sk })).body.characters).toHaveLength(1);

    // Embed and analytics.
    const resolved = await call(
      'post',
      '/api/v1/embed/resolve',
      {},
      {
        key: pk,
        body: {
          elements: [
            { id: 'a', prompt: 'a lighthouse at dusk', width: 512, height: 512, format: 'png' },
            { id: 'b', prompt: 'a brand new scene' },
            { id: 'c', shortcut: 'no-such-link' },
            { id: 'd', prompt: 'lighthouse', mode: 'instant' },
          ],
        },
      },
    );
    expect(resolved.body.results.map((r: { status: string }) => r.status)).toEqual(['ready', 'generating', 'failed', 'ready']);
    expect((await call('post', '/api/v1/embed/resolve', {}, { key: pk, body: { elements: [] } })).status).toBe(400);
    const fenced = await service.createAccount({ domains: ['shop.example.com'] });
    const fencedImage = call('post', '/api/v1/generate', {}, { key: fenced.secretKey, body: { prompt: 'a fenced garden' } }).then((r) =>
      service.waitForJob(r.body.jobId, fenced.secretKey),
    );
    expect(
      (
        await call(
          'post',
          '/api/v1/embed/resolve',
          {},
          { key: fenced.publishableKey, headers: { origin: 'https://evil.example.net' }, body: { elements: [{ id: 'a', prompt: 'x' }] } },
        )
      ).status,
    ).toBe(403);
    expect(
      (await call('post', '/api/v1/analytics/events', {}, { key: pk, body: { events: [{ eventType: 'impression', imageId: done.imageId }] } })).status,
    ).toBe(202);
    const limited = await service.createAccount();
    for (let i = 0; i < 30; i++)
      expect((await call('post', '/api/v1/analytics/events', {}, { key: limited.publishableKey, body: { events: [] } })).status).toBe(400);
    expect((await call('post', '/api/v1/analytics/events', {}, { key: limited.publishableKey, body: { events: [] } })).status).toBe(429);
    for (let i = 0; i < 30; i++) await call('post', '/api/v1/generate', {}, { key: limited.secretKey, body: {} });
    expect((await call('post', '/api/v1/generate', {}, { key: limited.secretKey, body: {} })).status).toBe(429);
    // Generate and render share the secret key's bucket; embed counts in the publishable key's own.
    expect((await call('get', '/api/v1/render', {}, { query: { prompt: 'x', key: limited.secretKey } })).status).toBe(429);
    for (let i = 0; i < 30; i++) await call('post', '/api/v1/embed/resolve', {}, { key: limited.publishableKey, body: { elements: [] } });
    expect((await call('post', '/api/v1/embed/resolve', {}, { key: limited.publishableKey, body: { elements: [] } })).status).toBe(429);

    // Permalinks.
    const admin = 'test-admin-token-0123456789abcdef';
    expect(
      (
        await call(
          'post',
          '/admin/api/v1/accounts/{handle}/permalinks',
          { handle: account.handle },
          { key: admin, body: { name: 'hero', imageIds: [done.imageId] } },
        )
      ).status,
    ).toBe(201);
    expect((await call('get', '/api/img/{handle}/{name}', { handle: account.handle, name: 'hero' })).status).toBe(302);
    expect((await call('get', '/api/img/{handle}/{name}', { handle: account.handle, name: 'nope' })).status).toBe(404);
    const fencedLink = { handle: fenced.handle, name: 'garden' };
    expect(
      (
        await call(
          'post',
          '/admin/api/v1/accounts/{handle}/permalinks',
          { handle: fenced.handle },
          { key: admin, body: { name: 'garden', imageIds: [(await fencedImage).imageId] } },
        )
      ).status,
    ).toBe(201);
    expect((await call('get', '/api/img/{handle}/{name}', fencedLink, { headers: { referer: 'https://evil.example.net/page' } })).status).toBe(403);
    expect((await call('get', '/api/img/{handle}/{name}', fencedLink, { headers: { referer: 'https://shop.example.com/page' } })).status).toBe(302);
    expect((await call('patch', '/api/v1/image/{id}/reject', { id: done.imageId }, { key: sk })).body).toEqual({ id: done.imageId, rejected: true });

    // The OpenAI-compatible surface (a fresh key: the scenario above spent this one's per-minute allowance).
    const oa = (await service.createAccount()).secretKey;
    // RENDER_WAIT_MS is shorter than the model here: a 503 until the image exists, then the image.
    const openAiImage = () =>
      call('post', '/v1/images/generations', {}, { key: oa, body: { prompt: 'a lighthouse at dusk', size: '512x512', output_format: 'png' } });
    let generated = await openAiImage();
    expect(generated.status).toBe(503);
    while (generated.status === 503) generated = await openAiImage();
    expect(generated.body.data).toHaveLength(1);
    expect((await call('post', '/v1/images/generations', {}, { key: oa, body: { prompt: 'x', size: 'huge' } })).body.error.param).toBe('size');
    expect((await call('post', '/v1/images/generations', {}, { key: `sk_live_${'x'.repeat(40)}`, body: { prompt: 'x' } })).status).toBe(401);
    expect((await call('post', '/v1/images/generations', {}, { key: oa, body: { prompt: 'x', style: 'film-noir' } })).status).toBe(403);
    expect((await call('post', '/v1/images/generations', {}, { key: oa, rawBody: JSON.stringify({ prompt: 'x'.repeat(40_000) }) })).status).toBe(413);
    expect((await call('post', '/v1/images/generations', {}, { key: broke.secretKey, body: { prompt: 'a new take' } })).body.error.code).toBe(
      'insufficient_quota',
    );
    expect((await call('post', '/v1/images/generations', {}, { key: limited.secretKey, body: { prompt: 'x' } })).body.error.code).toBe('rate_limit_exceeded');
    // An edit: its files are read after the key; 503 until the image exists, as for generations.
    const png = (width: number, height: number, channels: 3 | 4) =>
      sharp({ create: { width, height, channels, background: { r: 40, g: 90, b: 200, alpha: 0 } } })
        .png()
        .toBuffer();
    const editForm = async (mask: Buffer | null) => {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(await png(256, 256, 3))], { type: 'image/png' }), 'photo.png');
      if (mask) form.append('mask', new Blob([new Uint8Array(mask)], { type: 'image/png' }), 'mask.png');
      form.append('prompt', 'a red barn');
      return form;
    };
    const openAiEdit = async () => call('post', '/v1/images/edits', {}, { key: oa, form: await editForm(await png(256, 256, 4)) });
    let edited = await openAiEdit();
    expect(edited.status).toBe(503);
    while (edited.status === 503) edited = await openAiEdit();
    expect(edited.body.data).toHaveLength(1);
    expect((await call('post', '/v1/images/edits', {}, { key: oa, form: await editForm(await png(384, 256, 4)) })).body.error.param).toBe('mask');
    expect((await call('post', '/v1/images/edits', {}, { key: oa, body: { prompt: 'x' } })).status).toBe(415);
    expect((await call('post', '/v1/images/edits', {}, { form: await editForm(null) })).status).toBe(401);
    const models = await call('get', '/v1/models', {}, { key: sk });
    expect((await call('get', '/v1/models/{id}', { id: models.body.data[0].id }, { key: sk })).status).toBe(200);
    expect((await call('get', '/v1/models/{id}', { id: 'no-such-model' }, { key: sk })).status).toBe(404);

    // Service routes.
    for (const path of ['/api/health', '/api/ready', '/api/status', '/metrics', '/service-client.js', '/docs'])
      expect((await call('get', path)).status).toBe(200);
    expect((await call('get', '/demo', {}, { query: { key: pk } })).status).toBe(200);
    expect((await call('get', '/docs/assets/{file}', { file: 'swagger-ui-bundle.js' })).status).toBe(200);
    expect((await call('get', '/docs/assets/{file}', { file: 'package.json' })).status).toBe(404);

    // Operator API.
    const fresh = `oa-${process.pid}`;
    expect((await call('post', '/admin/api/v1/accounts', {}, { key: admin, body: { handle: fresh, email: `${fresh}@example.com` } })).status).toBe(201);
    expect((await call('post', '/admin/api/v1/accounts', {}, { key: admin, body: { handle: 'Not A Handle', email: 'x' } })).status).toBe(400);
    expect((await call('get', '/admin/api/v1/accounts/{handle}', { handle: fresh }, { key: admin })).body.status).toBe('pending');
    expect((await call('get', '/admin/api/v1/accounts/{handle}', { handle: 'nobody-here' }, { key: admin })).status).toBe(404);
    expect((await call('patch', '/admin/api/v1/accounts/{handle}', { handle: fresh }, { key: admin, body: { status: 'approved', plan: 'pro' } })).status).toBe(
      200,
    );
    const key = await call(
      'post',
      '/admin/api/v1/accounts/{handle}/keys',
      { handle: fresh },
      { key: admin, body: { kind: 'publishable', name: 'site', domains: ['*.example.com'] } },
    );
    expect(key.status).toBe(201);
    expect((await call('delete', '/admin/api/v1/keys/{id}', { id: key.body.id }, { key: admin })).status).toBe(204);
    expect((await call('post', '/admin/api/v1/accounts/{handle}/sign-in-link', { handle: fresh }, { key: admin })).status).toBe(201);
    expect(
      (
        await call(
          'post',
          '/admin/api/v1/accounts/{handle}/styles',
          { handle: fresh },
          { key: admin, body: { name: 'Moody', baseStyle: 'cinematic', promptTemplate: 'moody {prompt}' } },
        )
      ).status,
    ).toBe(201);
    const exported = await call(
      'get',
      '/admin/api/v1/accounts/{handle}/analytics/export',
      { handle: account.handle },
      { key: admin, query: { format: 'csv' } },
    );
    expect(exported.status).toBe(200);
    expect((await call('get', '/admin/api/v1/queue', {}, { key: admin })).status).toBe(200);
    expect((await call('post', '/admin/api/v1/queue/failed/{jobId}/retry', { jobId: 'no-such-job' }, { key: admin })).status).toBe(404);
    expect((await call('post', '/admin/api/v1/library/seed', {}, { key: admin })).body).toMatchObject({ seeded: 0 });
    expect((await call('get', '/admin/api/v1/accounts/{handle}/webhook-secret', { handle: account.handle }, { key: admin })).status).toBe(200);
    expect((await call('post', '/admin/api/v1/accounts/{handle}/webhook-secret/rotate', { handle: account.handle }, { key: admin })).status).toBe(200);
    expect(
      (await call('get', '/admin/api/v1/accounts/{handle}/webhooks/deliveries', { handle: account.handle }, { key: admin, query: { limit: '5' } })).body
        .deliveries,
    ).toEqual([expect.objectContaining({ jobId: started.body.jobId, status: 'blocked' })]);
    expect(
      (await call('get', '/admin/api/v1/accounts/{handle}/webhooks/deliveries', { handle: account.handle }, { key: admin, query: { limit: 'many' } })).status,
    ).toBe(400);

    expect(problems).toEqual([]);
    // The spec's statuses this scenario met, so a documented status cannot quietly go unchecked.
    for (const expected of [
      'POST /api/v1/generate 202',
      'POST /api/v1/generate 200',
      'POST /api/v1/generate 400',
      'POST /api/v1/generate 401',
      'POST /api/v1/generate 402',
      'POST /api/v1/generate 403',
      'POST /api/v1/generate 404',
      'POST /api/v1/generate 409',
      'POST /api/v1/generate 413',
      'POST /api/v1/generate 429',
      'GET /api/v1/job/{jobId} 200',
      'GET /api/v1/job/{jobId} 404',
      'GET /api/v1/job/{jobId}/events 204',
      'GET /api/v1/render 302',
      'GET /api/v1/render 402',
      'GET /api/v1/render 429',
      'GET /api/v1/render 503',
      'GET /api/v1/styles 403',
      'POST /api/v1/embed/resolve 200',
      'POST /api/v1/embed/resolve 403',
      'POST /api/v1/embed/resolve 429',
      'POST /api/v1/analytics/events 202',
      'POST /api/v1/analytics/events 403',
      'POST /api/v1/analytics/events 429',
      'GET /api/img/{handle}/{name} 302',
      'GET /api/img/{handle}/{name} 403',
      'POST /v1/images/generations 200',
      'POST /v1/images/generations 400',
      'POST /v1/images/generations 401',
      'POST /v1/images/generations 403',
      'POST /v1/images/generations 413',
      'POST /v1/images/generations 429',
      'POST /v1/images/generations 503',
      'POST /v1/images/edits 200',
      'POST /v1/images/edits 400',
      'POST /v1/images/edits 401',
      'POST /v1/images/edits 415',
      'POST /v1/images/edits 503',
      'GET /v1/models 200',
      'GET /v1/models/{id} 200',
      'GET /v1/models/{id} 404',
    ])
      expect(seen).toContain(expected);
  });
});
