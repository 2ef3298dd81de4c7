/**
 * Signed webhooks end to end (README, "Webhooks"), on both adapter sets: a receiver on 127.0.0.1
 * verifies every signature with the account's secret (Standard Webhooks library), answers 500 to
 * the first two attempts of each delivery, and deduplicates by webhook-id.
 */
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { addressRefusal, newWebhookSecret, type ImageModel } from '@promptpix/core';
import { SHAPES, startTestService, type TestAccount, type TestService } from './testing';

jest.setTimeout(60_000);

interface Received {
  path: string;
  id: string;
  timestamp: number;
  signature: string;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  /** Whether the signature verified with the secret the receiver holds at the time. */
  verified: boolean;
  answered: number;
}

/**
 * The test's webhook receiver. `/flaky` answers 500 to the first two attempts of each webhook-id
 * and 200 after; `/ok` answers 200; `/down` always 500. `handled` holds each delivery once, as a
 * receiver that deduplicates by webhook-id would process it.
 */
async function startReceiver() {
  const requests: Received[] = [];
  const handled = new Map<string, unknown>();
  const secrets = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      const id = String(req.headers['webhook-id']);
      const secret = secrets.get(url.searchParams.get('account') ?? '');
      let verified = false;
      let payload: unknown;
      try {
        payload = new Webhook(secret ?? newWebhookSecret()).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      const earlier = requests.filter((r) => r.id === id).length;
      const answered = url.pathname === '/down' || (url.pathname === '/flaky' && earlier < 2) || !verified ? 500 : 200;
      requests.push({
        path: url.pathname + url.search,
        id,
        timestamp: Number(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body,
        headers: req.headers,
        verified,
        answered,
      });
      if (answered === 200 && !handled.has(id)) handled.set(id, payload);
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'ok' : 'try later');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    handled,
    /** The secret the receiver verifies an account's deliveries with (?account=<handle> in the URL). */
    trust: (handle: string, secret: string) => secrets.set(handle, secret),
    /** The requests of the delivery that ended with a 200 for this job at this path. */
    async deliveryFor(jobId: string, path: string, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const done = requests.find((r) => r.path === path && r.answered === 200 && JSON.parse(r.body).jobId === jobId);
        if (done) return requests.filter((r) => r.id === done.id);
        if (Date.now() > deadline) throw new Error(`no delivery of ${jobId} to ${path}; got ${JSON.stringify(requests.map((r) => [r.path, r.answered]))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Prompts asking for it fail at the model. */
const failingOnRequest = (model: ImageModel): ImageModel => ({
  ...model,
  generate: async (req, signal) => {
    if (req.prompt.includes('please fail')) throw Object.assign(new Error('Refused by the model: content policy'), { permanent: true });
    return model.generate(req, signal);
  },
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(SHAPES)('webhooks (%s)', (shape) => {
  let service: TestService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let account: TestAccount;
  let secret: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startTestService(
      shape,
      { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_BACKOFF_MS: '50', WEBHOOK_ATTEMPTS: '4', MODEL_LATENCY_MS: '400', JOB_ATTEMPTS: '1' },
      { model: failingOnRequest },
    );
    account = await service.createAccount();
    const first = await service.admin('GET', `/admin/api/v1/accounts/${account.handle}/webhook-secret`);
    expect(first.status).toBe(200);
    secret = first.body.secret;
    receiver.trust(account.handle, secret);
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  const hook = (path: string, extra = '') => `${receiver.base}${path}?account=${account.handle}${extra}`;
  const generate = (body: Record<string, unknown>, key = account.secretKey) =>
    request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${key}`).send(body);
  const polled = async (jobId: string) => (await request(service.baseUrl).get(`/api/v1/job/${jobId}`).set('Authorization', `Bearer ${account.secretKey}`)).body;

  it("the operator reads the account's secret, made once on first read", async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect((await service.admin('GET', `/admin/api/v1/accounts/${account.handle}/webhook-secret`)).body).toEqual({ secret });
    expect((await service.admin('GET', '/admin/api/v1/accounts/nobody-here/webhook-secret')).status).toBe(404);
    expect(service.logs.join('')).not.toContain(secret);
  });

  it.each([
    ['ftp:', 'ftp://example.com/hook', 'Must be an https URL (http only for localhost)'],
    ['http to a public host', 'http://example.com/hook', 'Must be an https URL (http only for localhost)'],
    ['not a URL', 'not a url', 'Expected a URL'],
    ['credentials in the URL', 'https://user:pass@example.com/hook', 'Must not contain a user name or password'],
    ['over 2000 characters', `https://example.com/${'a'.repeat(2000)}`, 'Must be at most 2000 characters'],
    ['not a string', 42, 'Expected a string'],
  ])('400 naming webhookUrl for %s', async (_name, webhookUrl, message) => {
    const response = await generate({ prompt: 'a bad hook', webhookUrl });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Invalid request', details: { formErrors: [], fieldErrors: { webhookUrl: [message] } } });
  });

  it('completed and failed jobs are POSTed, signed, retried after 500s under the same webhook-id, and logged', async () => {
    const done = await generate({ prompt: 'a webhook lighthouse', webhookUrl: hook('/flaky') });
    const failed = await generate({ prompt: 'please fail, webhook', webhookUrl: hook('/flaky') });
    expect([done.status, failed.status]).toEqual([202, 202]);

    const completedAttempts = await receiver.deliveryFor(done.body.jobId, hook('/flaky').slice(receiver.base.length));
    const failedAttempts = await receiver.deliveryFor(failed.body.jobId, hook('/flaky').slice(receiver.base.length));
    for (const [attempts, jobId, status] of [
      [completedAttempts, done.body.jobId, 'completed'],
      [failedAttempts, failed.body.jobId, 'failed'],
    ] as const) {
      // Two 500s, then a 200: three attempts of one delivery, one webhook-id, each signed afresh.
      expect(attempts.map((a) => a.answered)).toEqual([500, 500, 200]);
      expect(new Set(attempts.map((a) => a.id)).size).toBe(1);
      expect(attempts.every((a) => a.verified)).toBe(true);
      expect(Math.abs(attempts[0].timestamp - Date.now() / 1000)).toBeLessThan(60);
      // The body is the job exactly as polling shows it.
      const job = await polled(jobId);
      expect(job.status).toBe(status);
      for (const a of attempts) expect(a.body).toBe(JSON.stringify(job));
      expect(attempts[0].headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': expect.stringMatching(/^PromptPix-Webhooks\//) });
      // Deduplicated by webhook-id, the receiver handled the delivery once.
      expect(receiver.handled.get(attempts[0].id)).toEqual(job);
      // Another secret does not verify it.
      expect(() => new Webhook(newWebhookSecret()).verify(attempts[2].body, attempts[2].headers as Record<string, string>)).toThrow();
    }
    expect(JSON.parse(failedAttempts[0].body)).toMatchObject({ status: 'failed', error: expect.stringContaining('Refused by the model') });

    const log = await until(
      () => service.admin('GET', `/admin/api/v1/accounts/${account.handle}/webhooks/deliveries?limit=10`),
      (r) => r.body.deliveries.filter((d: { status: string }) => d.status === 'delivered').length >= 2,
    );
    expect(log.status).toBe(200);
    const byJob = (jobId: string) => log.body.deliveries.find((d: { jobId: string }) => d.jobId === jobId);
    expect(byJob(done.body.jobId)).toEqual({
      id: completedAttempts[0].id,
      jobId: done.body.jobId,
      event: 'completed',
      url: hook('/flaky'),
      status: 'delivered',
      attempts: 3,
      lastStatusCode: 200,
      lastError: null,
      createdAt: expect.any(String),
      lastAttemptAt: expect.any(String),
      deliveredAt: expect.any(String),
    });
    expect(byJob(failed.body.jobId)).toMatchObject({ id: failedAttempts[0].id, event: 'failed', status: 'delivered', attempts: 3 });
    const created = log.body.deliveries.map((d: { createdAt: string }) => d.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    expect((await service.admin('GET', `/admin/api/v1/accounts/${account.handle}/webhooks/deliveries?limit=0`)).status).toBe(400);
  });

  it('each caller that joined a generation in flight is told at its own URL; a cache hit is told at once', async () => {
    const [first, second] = await Promise.all([
      generate({ prompt: 'a shared webhook harbour', webhookUrl: hook('/ok', '&caller=1') }),
      generate({ prompt: 'a shared webhook harbour', webhookUrl: hook('/ok', '&caller=2') }),
    ]);
    expect(second.body.jobId).toBe(first.body.jobId);
    const [one] = await receiver.deliveryFor(first.body.jobId, hook('/ok', '&caller=1').slice(receiver.base.length));
    const [two] = await receiver.deliveryFor(first.body.jobId, hook('/ok', '&caller=2').slice(receiver.base.length));
    expect(one.id).not.toBe(two.id);
    expect(one.body).toBe(two.body);
    expect(JSON.parse(one.body).status).toBe('completed');

    const cached = await generate({ prompt: 'a shared webhook harbour', webhookUrl: hook('/ok', '&caller=3') });
    expect(cached.status).toBe(202);
    expect(cached.body.jobId).not.toBe(first.body.jobId);
    const [hit] = await receiver.deliveryFor(cached.body.jobId, hook('/ok', '&caller=3').slice(receiver.base.length), 5000);
    expect(hit.verified).toBe(true);
    expect(JSON.parse(hit.body)).toEqual(await polled(cached.body.jobId));
  });

  it('a cancelled job is told too: failed, with error "cancelled"', async () => {
    const started = await generate({ prompt: 'a webhook for a cancelled job', webhookUrl: hook('/ok', '&caller=cancel') });
    const cancelled = await request(service.baseUrl).delete(`/api/v1/job/${started.body.jobId}`).set('Authorization', `Bearer ${account.secretKey}`);
    expect(cancelled.status).toBe(200);
    const [told] = await receiver.deliveryFor(started.body.jobId, hook('/ok', '&caller=cancel').slice(receiver.base.length));
    expect(told.verified).toBe(true);
    expect(JSON.parse(told.body)).toEqual(cancelled.body);
  });

  it('a worker that died after writing "completed" but before telling the webhook: the job\'s next run tells it', async () => {
    const done = await generate({ prompt: 'a job whose worker died after finishing it' });
    const record = (await service.waitForJob(done.body.jobId, account.secretKey)) && (await service.infra.jobStore.get(done.body.jobId))!;
    expect(record.status).toBe('completed');
    // What the dead run leaves: a completed record nobody was told about, and the queue entry that stalled-job recovery hands to the next worker.
    const jobId = crypto.randomUUID();
    const url = hook('/ok', '&caller=revived');
    await service.infra.jobStore.create({ ...record, jobId, webhookUrl: url }, 3600);
    await service.infra.queue.enqueue({ v: 1, jobId });
    const [told] = await receiver.deliveryFor(jobId, url.slice(receiver.base.length));
    expect(told.verified).toBe(true);
    expect(JSON.parse(told.body)).toMatchObject({ jobId, status: 'completed', imageId: record.imageId });
    // Nothing was made twice.
    expect(await service.infra.db.prisma.image.count({ where: { id: record.imageId! } })).toBe(1);
  });

  it('a delivery that never gets a 2xx ends failed after its attempts', async () => {
    const job = await generate({ prompt: 'a webhook nobody takes', webhookUrl: hook('/down') });
    await service.waitForJob(job.body.jobId, account.secretKey);
    const log = await until(
      () => service.admin('GET', `/admin/api/v1/accounts/${account.handle}/webhooks/deliveries`),
      (r) => r.body.deliveries.some((d: { jobId: string; status: string }) => d.jobId === job.body.jobId && d.status === 'failed'),
    );
    expect(log.body.deliveries.find((d: { jobId: string }) => d.jobId === job.body.jobId)).toMatchObject({
      status: 'failed',
      attempts: 4,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
      deliveredAt: null,
    });
    expect(receiver.requests.filter((r) => r.path.startsWith('/down')).map((r) => r.answered)).toEqual([500, 500, 500, 500]);
  });

  it("keeps finished deliveries WEBHOOK_LOG_DAYS (30) days: older ones go when the account's next delivery starts", async () => {
    const prisma = service.infra.db.prisma;
    const { id: accountId } = (await service.infra.accounts.findByHandle(account.handle))!;
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
    const row = (jobId: string, status: 'delivered' | 'failed' | 'pending', createdAt: Date) => ({
      id: crypto.randomUUID(),
      accountId,
      jobId,
      url: hook('/ok'),
      status,
      createdAt,
    });
    await prisma.webhookDelivery.createMany({
      data: [
        row('old-delivered', 'delivered', daysAgo(31)),
        row('old-failed', 'failed', daysAgo(45)),
        row('old-pending', 'pending', daysAgo(31)),
        row('recent-delivered', 'delivered', daysAgo(29)),
      ],
    });
    const job = await generate({ prompt: 'a webhook that tidies the log', webhookUrl: hook('/ok') });
    await receiver.deliveryFor(job.body.jobId, hook('/ok').slice(receiver.base.length));
    const left = (
      await prisma.webhookDelivery.findMany({ where: { accountId, jobId: { in: ['old-delivered', 'old-failed', 'old-pending', 'recent-delivered'] } } })
    )
      .map((d) => d.jobId)
      .sort();
    // A delivery still being retried is never dropped, however old.
    expect(left).toEqual(['old-pending', 'recent-delivered']);
    await prisma.webhookDelivery.deleteMany({ where: { jobId: { in: left } } });
  });

  it('rotating the secret signs every later delivery with the new one', async () => {
    const rotated = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/webhook-secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    expect((await service.admin('GET', `/admin/api/v1/accounts/${account.handle}/webhook-secret`)).body).toEqual({ secret: rotated.body.secret });
    expect(service.logs.join('')).not.toContain(rotated.body.secret);

    const job = await generate({ prompt: 'a webhook after rotation', webhookUrl: hook('/ok', '&rotated=1') });
    // The receiver still trusts the old secret: the new signature does not verify, so it answers 500...
    await until(
      async () => receiver.requests.filter((r) => r.path.includes('rotated=1')).length,
      (n) => n >= 1,
    );
    const before = receiver.requests.filter((r) => r.path.includes('rotated=1'));
    expect(before[0].verified).toBe(false);
    expect(() => new Webhook(rotated.body.secret).verify(before[0].body, before[0].headers as Record<string, string>)).not.toThrow();
    // ...until it is given the new one; the retries then verify.
    receiver.trust(account.handle, rotated.body.secret);
    const attempts = await receiver.deliveryFor(job.body.jobId, hook('/ok', '&rotated=1').slice(receiver.base.length));
    expect(attempts[attempts.length - 1].verified).toBe(true);
    secret = rotated.body.secret;
  });
});

describe.each(SHAPES)('webhook SSRF guard (%s)', (shape) => {
  let service: TestService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    // WEBHOOK_ALLOW_PRIVATE_ADDRESSES unset: the production default.
    service = await startTestService(shape, { WEBHOOK_BACKOFF_MS: '50', WEBHOOK_ATTEMPTS: '4' });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  const generateWithHook = (account: TestAccount, prompt: string, webhookUrl: string) =>
    request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({ prompt, webhookUrl });

  it.each([
    ['a loopback literal', () => `${receiver.base}/ok`, 'Must reach a public address, not a loopback address 127.0.0.1'],
    ['an IPv6 loopback literal', () => 'https://[::1]/ok', 'Must reach a public address, not a loopback address ::1'],
    ['a private literal', () => 'https://10.0.0.5/ok', 'Must reach a public address, not a private address 10.0.0.5'],
    ['the cloud metadata address', () => 'https://169.254.169.254/latest/meta-data', 'Must reach a public address, not a link-local address 169.254.169.254'],
    ['localhost', () => 'http://localhost:9/ok', 'Must reach a public address, not a loopback name localhost'],
  ])('refuses %s at once: a 400 naming webhookUrl, no job, no quota', async (_name, url, message) => {
    const account = await service.createAccount();
    const refused = await generateWithHook(account, 'a guarded webhook', url());
    expect(refused.status).toBe(400);
    expect(refused.body.details.fieldErrors).toEqual({ webhookUrl: [message] });
    expect((await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed).toBe(0);
  });

  it('never calls a receiver whose name resolves to a loopback or private address: blocked at delivery, not retried, and says why', async () => {
    expect(service.config.webhooks.allowPrivateAddresses).toBe(false);
    // This machine's own name: it resolves to a loopback or private address, never a public one.
    const host = hostname();
    const [resolved] = await lookup(host, { all: true });
    expect(addressRefusal(resolved.address)).not.toBeNull();
    const account = await service.createAccount();
    const started = await generateWithHook(account, 'a webhook to a private name', `https://${host}:${new URL(receiver.base).port}/ok`);
    expect(started.status).toBe(202);
    await service.waitForJob(started.body.jobId, account.secretKey);
    const log = await until(
      () => service.admin('GET', `/admin/api/v1/accounts/${account.handle}/webhooks/deliveries`),
      (r) => r.body.deliveries.some((d: { status: string }) => d.status === 'blocked'),
    );
    expect(log.body.deliveries).toEqual([
      expect.objectContaining({
        jobId: started.body.jobId,
        status: 'blocked',
        attempts: 1,
        lastStatusCode: null,
        lastError: `${host} resolves to ${addressRefusal(resolved.address)}: webhooks go only to public addresses`,
        deliveredAt: null,
      }),
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests).toEqual([]);
    expect((await service.admin('GET', `/admin/api/v1/accounts/${account.handle}/webhooks/deliveries`)).body.deliveries[0].attempts).toBe(1);
  });
});
