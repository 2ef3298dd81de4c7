/**
 * Faults survived: what the client sees while a dependency is down, and that nothing is lost
 * when it comes back. Real servers are stopped and started; nothing is mocked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { freePort, TEST_POSTGRES, testRedisPrefix, until } from '@promptpix/testing';
import { startTestService, type TestAccount, type TestService } from './testing';

/** Whether a Redis answers PING on this port now. */
const answersPing = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(1000, () => socket.destroy());
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += String(chunk);
      if (reply.includes('\r\n')) socket.end();
    });
    socket.once('error', () => undefined);
    socket.once('close', () => done(reply.startsWith('+PONG')));
  });

/**
 * A Redis of our own, persisted the way the README documents (appendonly, fsync always), ready
 * once it answers PING (replaying its AOF on a restart can take a while on a loaded machine).
 */
async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  let stderr = '';
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
      '--dir',
      dir,
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${stderr}`);
    if (await answersPing(port)) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer PING within 30 s: ${stderr}`);
}

const stop = (child: ChildProcess) =>
  new Promise<void>((done) => {
    if (child.exitCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });

describe('Redis unavailable, then back', () => {
  let dir: string;
  let port: number;
  let redis: ChildProcess;
  let gateway: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'promptpix-redis-'));
    port = await freePort();
    redis = await startRedis(port, dir);
    gateway = await startTestService(
      'production',
      { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: testRedisPrefix().replace(/:$/, '') },
      { worker: false },
    );
    account = await gateway.createAccount({ plan: 'business' });
  });
  afterAll(async () => {
    await gateway?.stop();
    if (redis) await stop(redis);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers fast 503s while Redis is down, recovers without a restart, and queued jobs survive', async () => {
    const generate = (prompt: string) =>
      request(gateway.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .send({ prompt, width: 256, height: 256 })
        .timeout(5000);
    const poll = (jobId: string) => request(gateway.baseUrl).get(`/api/v1/job/${jobId}`).set('Authorization', `Bearer ${account.secretKey}`).timeout(5000);
    const queued = [];
    for (const prompt of ['survivor one', 'survivor two', 'survivor three']) {
      const res = await generate(prompt);
      expect(res.status).toBe(202);
      queued.push(res.body.jobId as string);
    }

    await stop(redis);
    for (const res of [await poll(queued[0]), await generate('while down')]) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'Service unavailable' });
      expect(res.headers['retry-after']).toBe('5');
    }
    // Endpoints that don't need Redis keep working.
    expect((await request(gateway.baseUrl).get('/api/health')).status).toBe(200);
    expect((await request(gateway.baseUrl).get('/api/v1/styles').set('Authorization', `Bearer ${account.secretKey}`)).status).toBe(200);

    redis = await startRedis(port, dir);
    let recovered = false;
    for (let i = 0; i < 100 && !recovered; i++) {
      recovered = (await poll(queued[0])).status === 200;
      if (!recovered) await new Promise((r) => setTimeout(r, 100));
    }
    expect(recovered).toBe(true);

    // A worker started now finds the jobs queued before the outage.
    const worker = await startTestService('production', {}, { shareWith: gateway });
    try {
      for (const jobId of queued) expect((await gateway.waitForJob(jobId, account.secretKey)).status).toBe('completed');
    } finally {
      await worker.stop();
    }
    expect((await generate('after recovery')).status).toBe(202);
  });
});

describe('PostgreSQL unavailable, then back', () => {
  let service: TestService;
  let account: TestAccount;
  let admin: Client;

  beforeAll(async () => {
    service = await startTestService('production');
    account = await service.createAccount({ plan: 'business' });
    admin = new Client({ ...TEST_POSTGRES, database: 'postgres' });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await service?.stop();
  });

  const database = () => new URL(service.config.database.kind === 'postgres' ? service.config.database.url : '').pathname.slice(1);

  it('styles fall back to presets, analytics still answers 202, the rest answers JSON errors; all recover', async () => {
    const key = account.secretKey;
    // Warm the key cache so the outage is seen by the endpoints, not by authentication.
    expect((await request(service.baseUrl).get('/api/v1/styles').set('Authorization', `Bearer ${key}`)).status).toBe(200);

    await admin.query(`ALTER DATABASE "${database()}" WITH ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database()]);
    try {
      const styles = await request(service.baseUrl).get('/api/v1/styles').set('Authorization', `Bearer ${key}`).timeout(10_000);
      expect(styles.status).toBe(200);
      expect(styles.body.styles.every((s: { isPreset: boolean }) => s.isPreset)).toBe(true);

      const analytics = await request(service.baseUrl)
        .post('/api/v1/analytics/events')
        .set('Authorization', `Bearer ${key}`)
        .send({ events: [{ eventType: 'click' }] })
        .timeout(10_000);
      expect(analytics.status).toBe(202);
      await service.infra.events.flush();

      const generate = await request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${key}`)
        .send({ prompt: 'while the database is down' })
        .timeout(10_000);
      expect([500, 503]).toContain(generate.status);
      expect(generate.body.error).toEqual(expect.any(String));
      const image = await request(service.baseUrl)
        .get('/api/v1/image/00000000-0000-4000-8000-000000000000')
        .set('Authorization', `Bearer ${key}`)
        .timeout(10_000);
      expect([500, 503]).toContain(image.status);
    } finally {
      await admin.query(`ALTER DATABASE "${database()}" WITH ALLOW_CONNECTIONS true`);
    }
    const after = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${key}`)
      .send({ prompt: 'after the database came back', width: 256, height: 256 });
    expect(after.status).toBe(202);
    expect((await service.waitForJob(after.body.jobId, key)).status).toBe('completed');
  });
});

describe('storage write failure', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('production', { JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' });
  });
  afterAll(() => service?.stop());

  it('retries, then fails the job with a readable error and refunds the quota unit', async () => {
    const account = await service.createAccount({ monthlyGenerations: 1 });
    await service.s3!.stop();
    const res = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'nowhere to put it', width: 256, height: 256 });
    expect(res.status).toBe(202);
    const job = await service.waitForJob(res.body.jobId, account.secretKey, 30_000);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^Image generation failed: /);
    // The refund is the statement after the status change, so a poll can see "failed" a moment before it.
    const quotaUsed = () => service.admin('GET', `/admin/api/v1/accounts/${account.handle}`).then((r) => r.body.quotaUsed as number);
    expect(await until(quotaUsed, (used) => used === 0, 'the refund', 10_000)).toBe(0);
  });
});

describe('slow model under load', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('production', { MODEL_LATENCY_MS: '4000', WORKER_CONCURRENCY: '8' });
  });
  afterAll(() => service?.stop());

  it('polling and cached paths keep answering while every worker slot waits on the model', async () => {
    const account = await service.createAccount({ plan: 'business' });
    const generate = (prompt: string) =>
      request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({ prompt, width: 256, height: 256 });
    const jobs = await Promise.all(Array.from({ length: 16 }, (_, i) => generate(`slow scene ${i}`)));
    const ids = jobs.map((j) => j.body.jobId as string);
    // 100 polls and 20 embed batches run to completion before any generation can have finished.
    for (let i = 0; i < 100; i++) {
      const res = await request(service.baseUrl)
        .get(`/api/v1/job/${ids[i % ids.length]}`)
        .set('Authorization', `Bearer ${account.publishableKey}`);
      expect(res.status).toBe(200);
    }
    for (let i = 0; i < 20; i++) {
      const res = await request(service.baseUrl)
        .post('/api/v1/embed/resolve')
        .set('Authorization', `Bearer ${account.publishableKey}`)
        .send({ elements: [{ id: 'a', shortcut: 'none' }] });
      expect(res.status).toBe(200);
    }
    const states = await Promise.all(ids.map((id) => service.infra.jobStore.get(id)));
    expect(states.every((j) => j?.status === 'queued' || j?.status === 'processing')).toBe(true);
  });
});
