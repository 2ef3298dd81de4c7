/**
 * The README's flow, with real processes: an operator creates and approves an account and a key
 * with the admin CLI, a developer POSTs a generation, polls it, follows the image URL and gets a
 * valid 1024×1024 WebP. Once with `npm start` (embedded), once with gateway and worker as
 * separate processes on PostgreSQL + Redis + an S3-protocol server. Every process is started with
 * the README's npm command, so it runs the built bundle (dist/) after the stale check.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { latestSignInLink, tokenOfLink } from '@promptpix/gateway/testing';
import { freePort, createTestDatabase, startTestS3, TEST_REDIS_URL, testRedisPrefix, type TestDatabase, type TestS3 } from '@promptpix/testing';

const ROOT = resolve(__dirname, '../../..');

type Script = 'start' | 'start:gateway' | 'start:worker';
const npmRun = (script: Script) => ['run', '--silent', script];

/** `npm run <script>` in a process group of its own, so that stopping it reaches node under npm. */
function start(script: Script, env: Record<string, string>): ChildProcess & { output: string[] } {
  const child = spawn('npm', npmRun(script), {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  }) as ChildProcess & { output: string[] };
  child.output = [];
  child.stdout!.on('data', (d) => child.output.push(String(d)));
  child.stderr!.on('data', (d) => child.output.push(String(d)));
  return child;
}

async function waitForHealth(baseUrl: string, child: { output: string[]; exitCode: number | null }) {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited: ${child.output.join('')}`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no health at ${baseUrl}: ${child.output.join('')}`);
}

function admin(args: string[], env: Record<string, string>) {
  const result = spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')} failed: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout);
}

async function developerFlow(baseUrl: string, adminEnv: Record<string, string>) {
  const handle = `quick-${Date.now()}`;
  const account = admin(['accounts', 'create', '--handle', handle, '--email', `${handle}@example.com`], adminEnv);
  expect(account.status).toBe('pending');
  expect(admin(['accounts', 'approve', handle], adminEnv).status).toBe('approved');
  const { key } = admin(['keys', 'create', handle, '--kind', 'secret', '--name', 'server'], adminEnv);
  expect(key).toMatch(/^sk_live_/);
  expect(admin(['webhooks', 'secret', handle], adminEnv).secret).toMatch(/^whsec_/);

  const started = await fetch(`${baseUrl}/api/v1/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a hot air balloon over a misty valley at dawn' }),
  });
  expect(started.status).toBe(202);
  const { jobId } = await started.json();

  let job: any;
  for (let i = 0; i < 300; i++) {
    job = await (await fetch(`${baseUrl}/api/v1/job/${jobId}`, { headers: { authorization: `Bearer ${key}` } })).json();
    if (job.status === 'completed' || job.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(job.status).toBe('completed');

  const redirect = await fetch(`${baseUrl}/api/v1/image/${job.imageId}`, { headers: { authorization: `Bearer ${key}` }, redirect: 'manual' });
  expect(redirect.status).toBe(302);
  expect(redirect.headers.get('location')).toBe(job.imageUrl);
  for (const url of [job.imageUrl, redirect.headers.get('location')!]) {
    const file = await fetch(url);
    expect(file.status).toBe(200);
    const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1024, 1024]);
  }
  return handle;
}

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      // The grace timer is cleared once the child is gone: left pending, it held Jest's worker
      // open for 8 s after the last test ("A worker process has failed to exit gracefully").
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (grace = setTimeout(r, 8000)))]);
      clearTimeout(grace);
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  }
});

it('npm start: embedded single process, admin token from DATA_DIR', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'promptpix-quick-'));
  try {
    const port = await freePort();
    const server = start('start', { PORT: String(port), DATA_DIR: dataDir, ADMIN_TOKEN: '' });
    children.push(server);
    const baseUrl = `http://localhost:${port}`;
    await waitForHealth(baseUrl, server);
    expect(server.output.join('')).toContain(`Admin token`);
    expect(readFileSync(join(dataDir, 'admin-token'), 'utf8')).toMatch(/^adm_/);
    const handle = await developerFlow(baseUrl, { DATA_DIR: dataDir, PORT: String(port), ADMIN_TOKEN: '' });

    // The README's dashboard step: the approval mail sits in DATA_DIR/outbox and its link signs in.
    const shell = await fetch(`${baseUrl}/dashboard`);
    expect([shell.status, shell.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    // The dashboard's built files (dist/dashboard/, made by the build `npm start` ran), under hashed names.
    const script = (await shell.text()).match(/src="(\/dashboard\/assets\/app\.[0-9a-f]{16}\.js)"/)?.[1];
    expect(script).toBeDefined();
    const built = await fetch(`${baseUrl}${script}`);
    expect([built.status, built.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    const link = await latestSignInLink(join(dataDir, 'outbox'), `${handle}@example.com`);
    expect(link).toMatch(new RegExp(`^${baseUrl}/dashboard/sign-in#token=`));
    const signedIn = await fetch(`${baseUrl}/dashboard/api/sign-in/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: tokenOfLink(link!) }),
    });
    expect(signedIn.status).toBe(200);
    expect((await signedIn.json()).account).toMatchObject({ handle, status: 'approved' });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);

describe('production shape: gateway and worker as separate processes', () => {
  let db: TestDatabase;
  let s3: TestS3;
  beforeAll(async () => {
    [db, s3] = await Promise.all([createTestDatabase(), startTestS3()]);
  });
  afterAll(async () => {
    await db?.drop();
    await s3?.stop();
  });

  it('migrates with npm run db:migrate, then serves the flow', async () => {
    const migrate = spawnSync('npm', ['run', '--silent', 'db:migrate'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: db.url }, encoding: 'utf8' });
    expect(migrate.status).toBe(0);
    expect(JSON.parse(migrate.stdout.trim().split('\n').pop()!).applied.length).toBeGreaterThan(0);

    const port = await freePort();
    const env = {
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: testRedisPrefix().replace(/:$/, ''),
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      ADMIN_TOKEN: 'split-admin-token-0123456789',
      NODE_ENV: 'production',
    };
    const gateway = start('start:gateway', env);
    const worker = start('start:worker', env);
    children.push(gateway, worker);
    await waitForHealth(env.PUBLIC_BASE_URL, gateway);
    await developerFlow(env.PUBLIC_BASE_URL, { ADMIN_TOKEN: env.ADMIN_TOKEN, PROMPTPIX_URL: env.PUBLIC_BASE_URL });
    // Production logs are JSON lines.
    const line = gateway.output
      .join('')
      .split('\n')
      .find((l) => l.includes('"message":"request"'));
    expect(JSON.parse(line!)).toMatchObject({ level: 'info', service: 'promptpix-gateway', requestId: expect.any(String) });
  }, 120_000);

  it('refuses to start the gateway without DATABASE_URL and REDIS_URL, naming them', () => {
    const result = spawnSync('npm', npmRun('start:gateway'), { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', REDIS_URL: '' }, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('DATABASE_URL, REDIS_URL');
  });

  it('refuses a bad variable with a message naming it', () => {
    const result = spawnSync('npm', npmRun('start'), { cwd: ROOT, env: { ...process.env, PORT: 'eighty', DATA_DIR: tmpdir() }, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORT');
  });
});
