/**
 * What a stranger sends, with nothing but curl and a browser: bodies before credentials, opaque
 * origins, plan tiers and the safety filter stepped around through own styles, poisoned analytics
 * among another account's events. Both shapes: the stores differ in what they refuse.
 */
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { dashboardSessionFor } from '../dashboard/testing';
import { SHAPES, TEST_ADMIN_TOKEN, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

/**
 * Sends the headers and the first kB of a body that claims `declaredBytes`, and resolves with the
 * status the server answers before the rest is sent (which it never is). A server that reads
 * the body before checking credentials never answers.
 */
function statusBeforeBody(baseUrl: string, path: string, headers: Record<string, string>, declaredBytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(declaredBytes), ...headers },
    });
    const gaveUp = setTimeout(() => {
      req.destroy();
      reject(new Error(`${path}: no answer while the body was unsent: the server waited to read it`));
    }, 5000);
    req.on('response', (res) => {
      clearTimeout(gaveUp);
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', () => undefined);
    req.write(`{"pad":"${'x'.repeat(1024)}`);
  });
}

interface Stream {
  status: number;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens GET /api/v1/job/:jobId/events and resolves once the server has answered its headers. */
function openStream(baseUrl: string, key: string, jobId: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(`/api/v1/job/${jobId}/events`, baseUrl), { headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' } });
    req.on('response', (res) => {
      const ended = new Promise<void>((done) => res.on('end', done).on('close', done));
      res.resume();
      resolve({ status: res.statusCode ?? 0, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

interface RawConnection {
  /** Everything the server sent. */
  received(): string;
  /** Resolves with the milliseconds from connecting until the server closed the connection. */
  closed: Promise<number>;
  socket: net.Socket;
}

/** A bare TCP connection that sends `head`, then one more byte of body every 100 ms for as long as it stays open. */
function rawConnection(baseUrl: string, head: string, trickle = false): RawConnection {
  const { hostname, port } = new URL(baseUrl);
  const started = Date.now();
  const socket = net.connect(Number(port), hostname);
  let text = '';
  socket.on('data', (chunk) => (text += chunk));
  socket.on('error', () => undefined);
  const drip = trickle ? setInterval(() => socket.writable && socket.write('x'), 100) : undefined;
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  void closed.then(() => clearInterval(drip));
  socket.write(head);
  return { received: () => text, closed, socket };
}

/** Resolves with `promise`, or rejects once `ms` have passed (the socket is then destroyed). */
const within = <T>(ms: number, promise: Promise<T>, connection: RawConnection): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => {
        connection.socket.destroy();
        reject(new Error(`the connection was still open after ${ms} ms; it received: ${connection.received().slice(0, 200)}`));
      }, ms).unref(),
    ),
  ]);

/** A JSON document of `bytes` that gzips to a few kB. */
const gzippedJson = (bytes: number) => gzipSync(JSON.stringify({ name: 'x', pad: ' '.repeat(bytes) }));

describe.each(SHAPES)('abuse (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    // No worker: accepted jobs stay queued, so their event streams stay open.
    // HTTP_HEADERS_TIMEOUT_MS small so that a request whose headers never end is closed within the test.
    service = await startTestService(
      shape,
      { MAX_KEYS_PER_ACCOUNT: '4', MAX_CHARACTERS_PER_ACCOUNT: '2', JOB_STREAMS_PER_KEY: '2', JOB_STREAMS_PER_ACCOUNT: '3', HTTP_HEADERS_TIMEOUT_MS: '500' },
      { worker: false },
    );
    account = await service.createAccount({ plan: 'free' });
  });
  afterAll(() => service.stop());

  describe('nothing is read before the caller is authenticated', () => {
    it.each([
      ['the operator API', '/admin/api/v1/accounts/anyone/characters', { Authorization: 'Bearer wrong' }, 50_000_000],
      ['dashboard character photos', '/dashboard/api/characters', {}, 50_000_000],
      ['the generate API', '/api/v1/generate', { Authorization: 'Bearer sk_live_notakeynotakeynotakeynotakeynotakey' }, 900_000],
      ['image uploads', '/api/v1/uploads', { 'Content-Type': 'multipart/form-data; boundary=x' }, 25_000_000],
      ['an unknown route', '/nowhere', {}, 50_000_000],
    ])('%s answers from the headers, without waiting for the body', async (_door, path, headers, declared) => {
      const status = await statusBeforeBody(service.baseUrl, path, headers, declared);
      expect([401, 403, 404]).toContain(status);
    });

    it.each([
      ['without credentials', '/admin/api/v1/accounts', {}],
      ['with the operator token', '/admin/api/v1/accounts', { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` }],
      ['on the dashboard', '/dashboard/api/characters', {}],
    ])('a gzipped body is refused with 415 %s, never inflated', async (_who, path, headers) => {
      const res = await request(service.baseUrl)
        .post(path)
        .set(headers)
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .send(gzippedJson(20_000_000));
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: ErrorMessages.unsupportedEncoding });
    });

    it('a gzipped body on the API is refused with 415 for a valid key too, and starts nothing', async () => {
      const res = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .send(gzipSync(JSON.stringify({ prompt: 'a compressed request' })));
      expect(res.status).toBe(415);
      expect(res.headers['x-quota-used']).toBeUndefined();
    });

    it('sign-in, open to anyone, reads at most a few kB', async () => {
      const res = await request(service.baseUrl)
        .post('/dashboard/api/sign-in')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ email: 'a@example.com', pad: 'x'.repeat(20_000) }));
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: ErrorMessages.payloadTooLarge });
    });

    it("an authenticated caller still gets the route's own limit: 1 MiB on the API", async () => {
      const res = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .send({ prompt: 'x', pad: 'p'.repeat(1_100_000) });
      expect(res.status).toBe(413);
      const small = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .send({ prompt: 'x', pad: 'p'.repeat(500_000) });
      expect(small.status).toBe(202);
    });
  });

  describe('connections a stranger holds cost little', () => {
    it('a body that trickles in without a key gets its 401 and the connection is closed at once, not at the request timeout', async () => {
      const connection = rawConnection(
        service.baseUrl,
        `POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
        true,
      );
      // The request timeout is 60 s; the answer is final from the headers.
      expect(await within(3000, connection.closed, connection)).toBeLessThan(3000);
      expect(connection.received()).toMatch(/^HTTP\/1\.1 401 [\s\S]*\r\nConnection: close\r\n/i);
      expect(connection.received()).toContain(ErrorMessages.missingKey);
    });

    it('an unknown route with a body still arriving: 404, then closed', async () => {
      const connection = rawConnection(service.baseUrl, `PUT /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`, true);
      await within(3000, connection.closed, connection);
      expect(connection.received()).toMatch(/^HTTP\/1\.1 404 [\s\S]*\r\nConnection: close\r\n/i);
    });

    it('headers that never end are cut off after the headers timeout (408)', async () => {
      const connection = rawConnection(service.baseUrl, `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: `);
      const heldMs = await within(5000, connection.closed, connection);
      expect(heldMs).toBeGreaterThanOrEqual(400);
      expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
    });

    it('a keep-alive client keeps its connection across requests, bodies read included', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const sockets = new Set<unknown>();
      const call = (method: string, path: string, body?: string) =>
        new Promise<{ status: number; connection?: string }>((resolve, reject) => {
          const req = http.request(
            new URL(path, service.baseUrl),
            { method, agent, headers: { Authorization: `Bearer ${account.secretKey}`, ...(body && { 'Content-Type': 'application/json' }) } },
            (res) => {
              sockets.add(req.socket);
              res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      try {
        expect(await call('GET', '/api/health')).toEqual({ status: 200, connection: 'keep-alive' });
        // A body read to its end, then refused by validation: nothing is left unread, so the connection stays.
        expect(await call('POST', '/api/v1/analytics/events', JSON.stringify({ events: [] }))).toEqual({ status: 400, connection: 'keep-alive' });
        expect(await call('GET', '/api/v1/styles')).toEqual({ status: 200, connection: 'keep-alive' });
        expect(sockets.size).toBe(1);
      } finally {
        agent.destroy();
      }
    });
  });

  describe('origins', () => {
    const job = (key: string, origin: string) =>
      request(service.baseUrl).get('/api/v1/job/00000000-0000-4000-8000-000000000000').set('Authorization', `Bearer ${key}`).set('Origin', origin);

    it('an opaque origin (null) is foreign to a key with a domain list: 403, no CORS header', async () => {
      const restricted = await service.createAccount({ domains: ['example.com'] });
      const res = await job(restricted.publishableKey, 'null');
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: ErrorMessages.originNotAllowed });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('a key without a domain list answers an opaque origin like any other (*)', async () => {
      const res = await job(account.publishableKey, 'null');
      expect(res.status).toBe(404);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });
  });

  describe('plan tiers hold through own styles', () => {
    const PRO_PRESET = 'golden-hour';

    it('a free account cannot save an own style on a paid preset, by the operator API or the dashboard', async () => {
      const viaAdmin = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/styles`, { name: 'sneaky', baseStyle: PRO_PRESET });
      expect(viaAdmin.status).toBe(403);
      const dashboard = await dashboardSessionFor(service, account.handle);
      const viaDashboard = await dashboard.post('/dashboard/api/styles', { name: 'sneaky', baseStyle: PRO_PRESET });
      expect(viaDashboard.status).toBe(403);
      expect(viaDashboard.body.error).toMatch(/needs the pro plan/);
    });

    it('an own style made on a paid plan stops working on its preset when the plan is lowered: generate, render and embed', async () => {
      const pro = await service.createAccount({ plan: 'pro' });
      const style = await service.admin('POST', `/admin/api/v1/accounts/${pro.handle}/styles`, { name: 'warm', baseStyle: PRO_PRESET });
      expect(style.status).toBe(201);
      expect((await service.admin('PATCH', `/admin/api/v1/accounts/${pro.handle}`, { plan: 'free' })).status).toBe(200);
      const res = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${pro.secretKey}`)
        .send({ prompt: 'a lowered plan', style: style.body.id });
      expect(res.status).toBe(403);
      const render = await request(service.baseUrl)
        .get('/api/v1/render')
        .query({ prompt: 'a lowered plan, render', style: style.body.id })
        .set('Authorization', `Bearer ${pro.secretKey}`);
      expect(render.status).toBe(403);
      const embed = await request(service.baseUrl)
        .post('/api/v1/embed/resolve')
        .set('Authorization', `Bearer ${pro.publishableKey}`)
        .send({ elements: [{ id: 'a', prompt: 'a lowered plan, embed', style: style.body.id }] });
      expect(embed.status).toBe(200);
      expect(embed.body.results[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/needs the pro plan/) });
    });
  });

  describe('the safety filter reads every text the model sees', () => {
    let gory: string;
    beforeAll(async () => {
      const style = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/styles`, {
        name: 'gory',
        promptTemplate: 'a scene of blood and gore around {prompt}',
      });
      expect(style.status).toBe(201);
      gory = style.body.id;
    });

    it('generate for kids with an innocent prompt and a gory template is a 400 naming style', async () => {
      const res = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .send({ prompt: 'a friendly puppy', style: gory, ageBuckets: ['kids'] });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.details.fieldErrors)).toEqual(['style']);
    });

    it('render and embed refuse it too', async () => {
      const render = await request(service.baseUrl)
        .get('/api/v1/render')
        .query({ prompt: 'a friendly puppy', style: gory, age: 'kids' })
        .set('Authorization', `Bearer ${account.secretKey}`);
      expect(render.status).toBe(400);
      expect(Object.keys(render.body.details.fieldErrors)).toEqual(['style']);
      const embed = await request(service.baseUrl)
        .post('/api/v1/embed/resolve')
        .set('Authorization', `Bearer ${account.publishableKey}`)
        .send({ elements: [{ id: 'a', prompt: 'a friendly puppy', style: gory, age: 'kids' }] });
      expect(embed.body.results[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/^style: /) });
    });

    it('the same style for adults is allowed', async () => {
      const res = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .send({ prompt: 'a friendly puppy', style: gory, ageBuckets: ['adults'] });
      expect(res.status).toBe(202);
    });
  });

  describe("one caller's bad analytics never cost another's", () => {
    it("an unpaired surrogate in metadata is a 400, and another account's events in the same batch are stored", async () => {
      const other = await service.createAccount();
      const otherId = (await service.infra.accounts.findByHandle(other.handle))!.id;
      const poisoned = await request(service.baseUrl)
        .post('/api/v1/analytics/events')
        .set('Authorization', `Bearer ${account.publishableKey}`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ events: [{ eventType: 'click', metadata: { note: 'half a pair: \ud800' } }] }));
      expect(poisoned.status).toBe(400);
      expect(Object.keys(poisoned.body.details.fieldErrors)).toEqual(['events']);
      const deep = await request(service.baseUrl)
        .post('/api/v1/analytics/events')
        .set('Authorization', `Bearer ${account.publishableKey}`)
        .set('Content-Type', 'application/json')
        .send(`{"events":[{"eventType":"click","metadata":{"a":${'['.repeat(50)}${']'.repeat(50)}}}]}`);
      expect(deep.status).toBe(400);
      const valid = await request(service.baseUrl)
        .post('/api/v1/analytics/events')
        .set('Authorization', `Bearer ${other.publishableKey}`)
        .send({ events: [{ eventType: 'click', metadata: { note: 'fine' } }] });
      expect(valid.status).toBe(202);
      const stored = await service.storedEvents({ accountId: otherId, eventType: 'click' });
      expect(stored.map((e) => e.metadata)).toEqual([{ note: 'fine' }]);
    });
  });

  it('random metadata, any UTF-16 code unit in keys and values: each event is a 400 or stored, never dropped', async () => {
    const sender = await service.createAccount({ plan: 'enterprise' });
    const senderId = (await service.infra.accounts.findByHandle(sender.handle))!.id;
    // Any code units: NUL, lone surrogates, pairs in either order.
    const anyText = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 12 }).map((units) => String.fromCharCode(...units));
    const metadata = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        anyText,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(anyText, tie('value'), { maxKeys: 3 }),
      ),
      root: fc.dictionary(anyText, tie('value'), { maxKeys: 4 }),
    })).root;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(metadata, async (m) => {
        const res = await request(service.baseUrl)
          .post('/api/v1/analytics/events')
          .set('Authorization', `Bearer ${sender.publishableKey}`)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ events: [{ eventType: 'heart', metadata: m }] }));
        expect([202, 400]).toContain(res.status);
        if (res.status === 202) accepted++;
      }),
      { numRuns: 60 },
    );
    const stored = await service.storedEvents({ accountId: senderId, eventType: 'heart' }, accepted);
    expect(stored.reduce((sum, e) => sum + e.count, 0)).toBe(accepted);
    expect(service.logs.some((line) => line.includes('analytics events dropped'))).toBe(false);
  });

  describe('key and stream floods', () => {
    it('an account holds at most MAX_KEYS_PER_ACCOUNT live keys: one more is a 409, by the operator API or the dashboard; a revoke frees a place', async () => {
      const holder = await service.createAccount();
      const key = (n: number) => service.admin('POST', `/admin/api/v1/accounts/${holder.handle}/keys`, { kind: 'publishable', name: `k${n}`, domains: [] });
      expect([(await key(3)).status, (await key(4)).status]).toEqual([201, 201]);
      const over = await key(5);
      expect(over.status).toBe(409);
      expect(over.body.error).toMatch(/at most 4 live keys/);
      const dashboard = await dashboardSessionFor(service, holder.handle);
      expect((await dashboard.post('/dashboard/api/keys', { kind: 'publishable', name: 'k6', domains: [] })).status).toBe(409);
      expect((await service.admin('DELETE', `/admin/api/v1/keys/${holder.publishableKeyId}`)).status).toBe(204);
      expect((await key(7)).status).toBe(201);
    });

    it('an account holds at most MAX_CHARACTERS_PER_ACCOUNT characters: one more is a 409 before any photo is decoded', async () => {
      const holder = await service.createAccount();
      const character = (n: number) =>
        service.admin('POST', `/admin/api/v1/accounts/${holder.handle}/characters`, { name: `c${n}`, specSheet: 'a tall lighthouse keeper' });
      expect([(await character(1)).status, (await character(2)).status]).toEqual([201, 201]);
      const dashboard = await dashboardSessionFor(service, holder.handle);
      const over = await dashboard.post('/dashboard/api/characters', { name: 'c3', images: ['not even an image'] });
      expect(over.status).toBe(409);
      expect(over.body.error).toMatch(/at most 2 characters/);
      expect((await character(4)).status).toBe(409);
    });

    it('concurrent creates never pass the caps together: 10 keys at once on 2 free places give two 201s, 10 characters at once on a cap of 2 give two', async () => {
      const holder = await service.createAccount();
      const keys = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          service.admin('POST', `/admin/api/v1/accounts/${holder.handle}/keys`, { kind: 'secret', name: `burst${n}`, domains: [] }),
        ),
      );
      expect(keys.map((r) => r.status).sort()).toEqual([201, 201, ...Array(8).fill(409)]);
      const holderId = (await service.infra.accounts.findByHandle(holder.handle))!.id;
      expect(await service.infra.apiKeys.countActive(holderId)).toBe(4);
      const characters = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          service.admin('POST', `/admin/api/v1/accounts/${holder.handle}/characters`, { name: `burst${n}`, specSheet: 'a tall lighthouse keeper' }),
        ),
      );
      expect(characters.map((r) => r.status).sort()).toEqual([201, 201, ...Array(8).fill(409)]);
    });

    it('streams opened at once never pass the caps together: 8 at once on two keys give 3 (the account cap), at most 2 on one key', async () => {
      const owner = await service.createAccount();
      const job = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${owner.secretKey}`)
        .send({ prompt: 'a job that waits for a burst' });
      expect(job.status).toBe(202);
      const keys = [
        owner.publishableKey,
        owner.secretKey,
        owner.publishableKey,
        owner.secretKey,
        owner.publishableKey,
        owner.secretKey,
        owner.publishableKey,
        owner.secretKey,
      ];
      const streams = await Promise.all(keys.map((key) => openStream(service.baseUrl, key, job.body.jobId)));
      const open = streams.filter((s) => s.status === 200);
      expect(streams.map((s) => s.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
      for (const key of [owner.publishableKey, owner.secretKey])
        expect(keys.filter((k, i) => k === key && streams[i].status === 200).length).toBeLessThanOrEqual(2);
      for (const s of open) s.close();
      await Promise.all(open.map((s) => s.ended));
    });

    it('streams are capped per key and per account (429), and end when the key is revoked or the account suspended', async () => {
      const owner = await service.createAccount();
      const job = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${owner.secretKey}`)
        .send({ prompt: 'a job that waits' });
      expect(job.status).toBe(202);
      const open = (key: string) => openStream(service.baseUrl, key, job.body.jobId);
      const [first, second] = [await open(owner.publishableKey), await open(owner.publishableKey)];
      expect([first.status, second.status]).toEqual([200, 200]);
      const third = await open(owner.publishableKey);
      expect(third.status).toBe(429);
      // The account's cap counts every key.
      const viaSecret = await open(owner.secretKey);
      expect(viaSecret.status).toBe(200);
      expect((await open(owner.secretKey)).status).toBe(429);

      expect((await service.admin('DELETE', `/admin/api/v1/keys/${owner.publishableKeyId}`)).status).toBe(204);
      await Promise.all([first.ended, second.ended]);
      expect((await open(owner.publishableKey)).status).toBe(401);

      expect((await service.admin('PATCH', `/admin/api/v1/accounts/${owner.handle}`, { status: 'suspended' })).status).toBe(200);
      await viaSecret.ended;
      expect((await open(owner.secretKey)).status).toBe(403);
    });
  });
});
