/**
 * How many idle or slow connections one gateway holds, what each costs, and for how long (issue
 * 34, "Connections a stranger holds cost little"). Starts `npm start`'s server from source as a
 * child on 127.0.0.1 (embedded, a temporary DATA_DIR) with the HTTP limits scaled down so the
 * run is short, then:
 *   1. opens HELD_CONNECTIONS connections of each kind and reads the server's RSS while they are held;
 *   2. times how long the server keeps 10 connections of each kind;
 *   3. opens more connections than HTTP_MAX_CONNECTIONS and counts the ones it refuses.
 * Loopback only; every loop is bounded. Numbers go to docs/guarantees.md.
 *
 *   npx tsx scripts/held-connections.ts          # HELD_CONNECTIONS=1500 by default
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HELD = Number(process.env.HELD_CONNECTIONS ?? 1500);
const LIMITS = { headersMs: 4000, requestMs: 8000, keepAliveMs: 4000, maxConnections: HELD + 200 };
const ADMIN_TOKEN = 'held-connections-admin-token-0123';
const MB = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

async function until<T>(what: string, read: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Kind {
  name: string;
  /** Sent once connected. */
  head: string;
  /** One more byte every 500 ms while open. */
  trickle?: boolean;
}

const KINDS: Kind[] = [
  { name: 'silent (connects, sends nothing)', head: '' },
  { name: 'headers that never end (1 kB sent)', head: `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(1000)}`, trickle: true },
  { name: 'idle keep-alive (after one request)', head: 'GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n' },
  {
    name: 'body trickling in, no key',
    head: 'POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{',
    trickle: true,
  },
  {
    name: 'body trickling in, operator token',
    head: `POST /admin/api/v1/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{`,
    trickle: true,
  },
];

interface Held {
  socket: net.Socket;
  connected: Promise<void>;
  closedAfterMs: Promise<number>;
}

function open(port: number, kind: Kind): Held {
  const started = Date.now();
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.resume();
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const drip = kind.trickle ? setInterval(() => socket.writable && socket.write('x'), 500) : undefined;
  const closedAfterMs = new Promise<number>((resolve) =>
    socket.once('close', () => {
      clearInterval(drip);
      resolve(Date.now() - started);
    }),
  );
  if (kind.head) socket.write(kind.head);
  return { socket, connected, closedAfterMs };
}

async function startServer(): Promise<{ child: ChildProcess; port: number; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'promptpix-held-'));
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      STYLE_PREVIEWS: 'off',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      PORT: String(port),
      HTTP_HEADERS_TIMEOUT_MS: String(LIMITS.headersMs),
      HTTP_REQUEST_TIMEOUT_MS: String(LIMITS.requestMs),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(LIMITS.keepAliveMs),
      HTTP_MAX_CONNECTIONS: String(LIMITS.maxConnections),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await until(
    'the server to answer /api/health',
    async () => ((await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.ok ? true : undefined),
    120_000,
  );
  return { child, port, dataDir };
}

async function main() {
  const { child, port, dataDir } = await startServer();
  const pid = child.pid!;
  try {
    console.log(
      `limits: headers ${LIMITS.headersMs} ms, request ${LIMITS.requestMs} ms, keep-alive ${LIMITS.keepAliveMs} ms, max connections ${LIMITS.maxConnections}\n`,
    );

    console.log(`1. memory: ${HELD} connections of each kind held at once (server RSS)`);
    for (const kind of KINDS) {
      await sleep(1000);
      const before = rssBytes(pid);
      const held = Array.from({ length: HELD }, () => open(port, kind));
      await Promise.all(held.map((h) => h.connected));
      await sleep(1000);
      const during = rssBytes(pid);
      const stillOpen = held.filter((h) => !h.socket.destroyed).length;
      console.log(
        `   ${kind.name}: ${stillOpen} open, RSS ${(before / MB).toFixed(0)} → ${(during / MB).toFixed(0)} MB, ${((during - before) / Math.max(stillOpen, 1) / 1024).toFixed(1)} kB per connection`,
      );
      for (const h of held) h.socket.destroy();
      await Promise.all(held.map((h) => h.closedAfterMs));
    }

    console.log('\n2. how long the server keeps each kind (10 connections each, all at once)');
    const timed = KINDS.map((kind) => ({ kind, held: Array.from({ length: 10 }, () => open(port, kind)) }));
    const bound = setTimeout(() => {
      for (const t of timed) for (const h of t.held) h.socket.destroy();
    }, LIMITS.requestMs * 3).unref();
    for (const { kind, held } of timed) {
      const ms = (await Promise.all(held.map((h) => h.closedAfterMs))).sort((a, b) => a - b);
      console.log(`   ${kind.name}: closed after ${ms[0]}–${ms[ms.length - 1]} ms`);
    }
    clearTimeout(bound);

    console.log(`\n3. the cap: ${LIMITS.maxConnections + 300} silent connections against HTTP_MAX_CONNECTIONS=${LIMITS.maxConnections}`);
    const flood = Array.from({ length: LIMITS.maxConnections + 300 }, () => open(port, KINDS[0]));
    await Promise.all(flood.map((h) => h.connected));
    // The kernel completes handshakes the server has not accepted yet (the listen backlog), so the refusals arrive over a moment.
    const refusedAfter = Date.now();
    const refused = await until(
      'the server to refuse the connections above the cap',
      () => {
        const count = flood.filter((h) => h.socket.destroyed).length;
        return count >= flood.length - LIMITS.maxConnections || Date.now() - refusedAfter > 3000 ? count : undefined;
      },
      5000,
    );
    console.log(`   refused: ${refused} (within ${Date.now() - refusedAfter} ms), held: ${flood.length - refused}`);
    const health = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.status,
      (e: Error) => `refused (${e.message})`,
    );
    console.log(`   /api/health while the cap is full: ${health}`);
    for (const h of flood) h.socket.destroy();
    await Promise.all(flood.map((h) => h.closedAfterMs));
    await sleep(500);
    console.log(`   /api/health once they are gone: ${(await fetch(`http://127.0.0.1:${port}/api/health`)).status}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
