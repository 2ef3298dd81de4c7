/**
 * The embedded default's memory: `npm start` (the server bundle on plain node, PGlite, in-process
 * queue, local disk) after the workload a new user's first session makes, the conformance suite's
 * shape: accounts and keys, 100 generations at the default size, an embed batch over them, the
 * dashboard and the page script. RSS split into V8 heap, external (PGlite's and Prisma's wasm
 * memories) and native, at idle after start-up and after the workload.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, operatorApi, publicApi } from '../api';
import type { Ctx } from '../context';
import { memorySplit, splitText, type MemorySplit } from '../memory';
import { logTail, sampleRss, sleep, startChild, waitFor } from '../proc';
import { BUNDLE_NODE_ARGS, bundle, EMBEDDED_START_ENV, freePort } from '../stack';

export interface EmbeddedMemoryResult {
  generations: number;
  embedElements: number;
  idle: MemorySplit;
  afterWorkload: MemorySplit;
  /** Highest RSS sampled during the workload. */
  peakRssMb: number;
  workloadSeconds: number;
}

const GENERATIONS = 100;
const EMBED_ELEMENTS = 50;

export async function runEmbeddedMemory(ctx: Ctx): Promise<EmbeddedMemoryResult> {
  const { log } = ctx;
  const dir = mkdtempSync(join(tmpdir(), 'promptpix-bench-embedded-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString('hex');
  // Only what `npm start` on a fresh clone has: no DATABASE_URL, REDIS_URL or S3_BUCKET.
  const child = startChild({
    name: 'embedded-server',
    ...bundle('server'),
    nodeArgs: BUNDLE_NODE_ARGS,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      DATA_DIR: join(dir, 'data'),
      PUBLIC_BASE_URL: base,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      ...EMBEDDED_START_ENV,
    },
    logDir: dir,
  });
  try {
    await waitFor(
      'embedded server /api/health',
      async () => {
        if (!child.isRunning()) throw new Error(`embedded server exited:\n${logTail(child)}`);
        return (await fetch(`${base}/api/health`).catch(() => null))?.ok ? true : undefined;
      },
      120_000,
      200,
    );
    await sleep(3000);
    const idle = await memorySplit(base, child.pid);
    log(`embedded: idle after start-up: ${splitText(idle)}`);

    const started = Date.now();
    const rss = sampleRss(child.pid);
    const operator = operatorApi(base, adminToken);
    const api = publicApi(base);
    const [user] = await Promise.all([
      operator.benchAccount('embedded-user', 2),
      operator.benchAccount('embedded-second', 1),
      operator.benchAccount('embedded-third', 1),
    ]);
    const subjects = ['fox', 'owl', 'castle', 'robot', 'garden', 'harbour', 'lighthouse', 'forest', 'city', 'desert'];
    const prompts = Array.from(
      { length: GENERATIONS },
      (_, i) => `${subjects[i % 10]} at ${['dawn', 'noon', 'dusk', 'night', 'in fog'][Math.floor(i / 10) % 5]}, study ${i}`,
    );
    // The default size and format (1024×1024 WebP): what a first user asks for.
    await api.generateAll(
      user.keys[0],
      prompts.map((prompt) => ({ prompt })),
      8,
    );
    const elements = prompts.slice(0, EMBED_ELEMENTS).map((prompt, i) => ({ id: `e${i}`, prompt }));
    const embed = await http<{ results?: unknown[] }>(`${base}/api/v1/embed/resolve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.keys[1]}` },
      json: { elements },
    });
    if (embed.status !== 200) throw new Error(`embed resolve answered ${embed.status}: ${embed.text.slice(0, 200)}`);
    for (const path of ['/dashboard', '/dashboard/assets/app.js', '/service-client.js', '/docs']) {
      const res = await http(`${base}${path}`);
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    }
    const workloadSeconds = Math.round((Date.now() - started) / 100) / 10;
    const peakRssMb = Math.round(rss.stop());
    await sleep(3000);
    const afterWorkload = await memorySplit(base, child.pid);
    log(
      `embedded: after ${GENERATIONS} generations, an embed batch of ${EMBED_ELEMENTS} and the dashboard (${workloadSeconds} s): ${splitText(afterWorkload)}; peak ${peakRssMb} MB`,
    );
    return { generations: GENERATIONS, embedElements: EMBED_ELEMENTS, idle, afterWorkload, peakRssMb, workloadSeconds };
  } finally {
    await child.stop(10_000);
    rmSync(dir, { recursive: true, force: true });
  }
}
