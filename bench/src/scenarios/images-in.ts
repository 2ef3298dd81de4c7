/**
 * Images sent in (issue #31):
 * - an edit's overhead next to a plain generation's, on the embedded service (`npm start`): the
 *   same prompts at the same model latency, end to end (POST → `completed` seen by a poller), one
 *   job at a time, edits of a fresh 1024×1024 photo within a mask; the uploads timed apart;
 * - the upload route's memory on the production gateway: 20 uploads of the largest file it takes
 *   (IMAGE_INPUT_LIMITS.maxBytes, a noisy 4096×4096 PNG) sent at once from several accounts, once
 *   as a burst (each sent once: how many 201 / 429 / 503) and once with every client retrying
 *   after Retry-After until stored; the gateway's peak RSS (VmHWM of a fresh process) and external
 *   memory (its own gauge, sampled), and the time.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { IMAGE_INPUT_LIMITS } from '@promptpix/contracts';
import { createProceduralModel } from '@promptpix/models';
import { operatorApi, publicApi, type BenchAccount } from '../api';
import type { Ctx } from '../context';
import { summarize, type LatencySummary } from '../load';
import { readMemory, sampleRss, sleep } from '../proc';
import { startEmbeddedServer } from '../stack';

/** The model latency of both kinds of job in the edit phase: the fairness phase's model. */
export const EDIT_MODEL_LATENCY_MS = 400;
const EDIT_PAIRS = 20;
const EDIT_SIDE = 1024;
const POLL_EVERY_MS = 10;
const UPLOADS_AT_ONCE = 20;
const UPLOAD_ACCOUNTS = 5;
/** A client retrying after 429/503 gives up after this many attempts (bounded loop). */
const MAX_ATTEMPTS = 60;

export interface EditOverheadResult {
  pairs: number;
  modelLatencyMs: number;
  size: string;
  pollEveryMs: number;
  /** Bytes of the photo sent in (JPEG) and of the mask (PNG). */
  photoBytes: number;
  maskBytes: number;
  plainMs: LatencySummary & { p95: number };
  editMs: LatencySummary & { p95: number };
  /** Edit minus plain generation of the same prompt, pair by pair. */
  overheadMs: LatencySummary & { p95: number };
  /** The photo's and the mask's uploads, one after the other, before each edit. */
  uploadMs: LatencySummary & { p95: number };
  /** The built-in model's own call without its latency, in this process: what of the overhead is its edit's drawing. */
  modelAloneMs: { plain: LatencySummary; edit: LatencySummary };
}

export interface UploadRound {
  name: string;
  accounts: number;
  uploads: number;
  fileBytes: number;
  statuses: Record<string, number>;
  /** Requests that got no HTTP answer (the connection dropped before one). */
  connectionErrors: number;
  attempts: number;
  stored: number;
  seconds: number;
  /** Time to each 201, from the first attempt. */
  storedMs?: LatencySummary;
  peakRssMb: number;
  vmHwmMb?: number;
  /** Highest `nodejs_external_memory_bytes` seen while it ran (Buffers, ArrayBuffers). */
  peakExternalMb?: number;
  peakHeapUsedMb?: number;
}

export interface UploadMemoryResult {
  inFlight: { perProcess: number; perAccount: number };
  idleRssMb?: number;
  rounds: UploadRound[];
  afterRssMb?: number;
}

export interface ImagesInResult {
  edits?: EditOverheadResult;
  uploads?: UploadMemoryResult;
}

const withP95 = (values: number[]): LatencySummary & { p95: number } => {
  const sorted = [...values].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] ?? NaN;
  return { ...summarize(values), p95: Math.round(p95 * 100) / 100 };
};

/** One multipart upload through node:http (an early 429/503 is read even while the body is still being written). */
export function sendUpload(base: string, key: string, file: Buffer): Promise<{ status: number; body: string; ms: number }> {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="image"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const started = performance.now();
  return new Promise((resolve) => {
    let answered: { status: number; chunks: Buffer[] } | null = null;
    const done = (status: number, body: string) => resolve({ status, body, ms: performance.now() - started });
    const req = httpRequest(`${base}/api/v1/uploads`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + file.length + tail.length,
      },
    });
    req.on('response', (res) => {
      answered = { status: res.statusCode ?? 0, chunks: [] };
      res.on('data', (c: Buffer) => answered!.chunks.push(c));
      res.on('end', () => done(answered!.status, Buffer.concat(answered!.chunks).toString()));
      res.on('error', () => done(answered!.status, Buffer.concat(answered!.chunks).toString()));
    });
    // A refusal before the body was read closes the connection: the write may fail after the answer came.
    req.on('error', (error) => {
      if (!answered) done(0, String(error));
    });
    req.write(head);
    req.write(file);
    req.end(tail);
  });
}

async function uploadOrThrow(base: string, key: string, file: Buffer): Promise<{ id: string; ms: number }> {
  const answer = await sendUpload(base, key, file);
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`upload answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  return { id: (JSON.parse(answer.body) as { id: string }).id, ms: answer.ms };
}

/** A 1024×1024 photo-like JPEG: a gradient under noise, different for each `seed`. */
async function photo(seed: number): Promise<Buffer> {
  const noise = await sharp(randomBytes(256 * 256 * 3), { raw: { width: 256, height: 256, channels: 3 } })
    .resize(EDIT_SIDE, EDIT_SIDE, { kernel: 'cubic' })
    .png()
    .toBuffer();
  return sharp({ create: { width: EDIT_SIDE, height: EDIT_SIDE, channels: 3, background: { r: (seed * 37) % 255, g: 110, b: 165 } } })
    .composite([{ input: noise, blend: 'overlay' }])
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** OpenAI's convention: transparent (may change) in the middle third, opaque (kept) around it. */
function mask(): Promise<Buffer> {
  const third = Math.round(EDIT_SIDE / 3);
  const black = (w: number, h: number) => ({ create: { width: w, height: h, channels: 4 as const, background: { r: 0, g: 0, b: 0, alpha: 1 } } });
  return sharp(black(EDIT_SIDE, EDIT_SIDE))
    .composite([{ input: black(third, third), left: third, top: third, blend: 'dest-out' }])
    .png()
    .toBuffer();
}

export async function runEditOverhead(ctx: Ctx): Promise<EditOverheadResult> {
  const { stack, log } = ctx;
  const { child, base } = await startEmbeddedServer({
    name: 'embedded-edits',
    dataDir: join(stack.dataDir, '..', 'embedded-edits'),
    adminToken: stack.adminToken,
    logDir: stack.logDir,
    env: { MODEL_LATENCY_MS: String(EDIT_MODEL_LATENCY_MS) },
  });
  try {
    log(`images: embedded server pid ${child.pid} on ${base}, model latency ${EDIT_MODEL_LATENCY_MS} ms; ${EDIT_PAIRS} edits and as many plain generations`);
    const [key] = (await operatorApi(base, stack.adminToken).benchAccount('bench-edits', 1)).keys;
    const api = publicApi(base);
    const maskBytes = await mask();
    const untilDone = async (jobId: string) => {
      for (;;) {
        const job = await api.job(key, jobId);
        if (job.status === 'completed') return;
        if (job.status === 'failed') throw new Error(`job ${jobId} failed: ${job.error}`);
        await sleep(POLL_EVERY_MS);
      }
    };
    const timed = async (body: Record<string, unknown>) => {
      const t0 = performance.now();
      const answer = await api.generate(key, body as never);
      if (answer.status !== 202) throw new Error(`generate answered ${answer.status}: ${answer.text.slice(0, 200)}`);
      await untilDone(answer.body.jobId);
      return performance.now() - t0;
    };
    const size = { width: EDIT_SIDE, height: EDIT_SIDE, format: 'png' };
    // Warm-up: one of each, unmeasured.
    const warm = await photo(9999);
    const warmIds = [(await uploadOrThrow(base, key, warm)).id, (await uploadOrThrow(base, key, maskBytes)).id];
    await timed({ prompt: 'warm-up: a barn', ...size });
    await timed({ prompt: 'warm-up: a barn', image: warmIds[0], mask: warmIds[1], ...size });

    const plain: number[] = [];
    const edit: number[] = [];
    const upload: number[] = [];
    let photoBytes = 0;
    for (let i = 0; i < EDIT_PAIRS; i++) {
      const prompt = `edit probe ${i}: a red barn in a meadow`;
      const bytes = await photo(i);
      photoBytes = Math.max(photoBytes, bytes.length);
      const image = await uploadOrThrow(base, key, bytes);
      const masked = await uploadOrThrow(base, key, maskBytes);
      upload.push(image.ms + masked.ms);
      // Alternate which goes first, so a drift over the run falls on both alike.
      const runEdit = () => timed({ prompt, image: image.id, mask: masked.id, strength: 0.9, ...size });
      const runPlain = () => timed({ prompt, ...size });
      if (i % 2 === 0) {
        plain.push(await runPlain());
        edit.push(await runEdit());
      } else {
        edit.push(await runEdit());
        plain.push(await runPlain());
      }
    }
    const modelAloneMs = await modelAlone(await photo(4242), maskBytes);
    const result: EditOverheadResult = {
      pairs: EDIT_PAIRS,
      modelLatencyMs: EDIT_MODEL_LATENCY_MS,
      size: `${EDIT_SIDE}×${EDIT_SIDE} PNG`,
      pollEveryMs: POLL_EVERY_MS,
      photoBytes,
      maskBytes: maskBytes.length,
      plainMs: withP95(plain),
      editMs: withP95(edit),
      overheadMs: withP95(edit.map((e, i) => e - plain[i])),
      uploadMs: withP95(upload),
      modelAloneMs,
    };
    log(
      `images: plain p50 ${result.plainMs.p50} ms (p95 ${result.plainMs.p95}), edit p50 ${result.editMs.p50} ms (p95 ${result.editMs.p95}), overhead p50 ${result.overheadMs.p50} ms; uploads p50 ${result.uploadMs.p50} ms; the model alone: plain p50 ${modelAloneMs.plain.p50} ms, edit p50 ${modelAloneMs.edit.p50} ms`,
    );
    return result;
  } finally {
    await child.stop();
  }
}

/** The built-in model's call with no latency added, plain and as an edit of `photoBytes` within `maskBytes` (PNG, as the worker hands them over). */
async function modelAlone(photoBytes: Buffer, maskBytes: Buffer): Promise<{ plain: LatencySummary; edit: LatencySummary }> {
  const model = createProceduralModel({ latencyMs: 0 });
  const edit = { images: [await sharp(photoBytes).png().toBuffer()], mask: maskBytes };
  const request = (i: number) => ({ prompt: `model alone ${i}: a red barn in a meadow`, strength: 0.9, seed: 1000 + i, width: EDIT_SIDE, height: EDIT_SIDE });
  const time = async (run: () => Promise<unknown>) => {
    const t = performance.now();
    await run();
    return performance.now() - t;
  };
  for (let i = 0; i < 2; i++) {
    await model.generate(request(i));
    await model.generate({ ...request(i), edit });
  }
  const plain: number[] = [];
  const edited: number[] = [];
  for (let i = 0; i < 10; i++) {
    plain.push(await time(() => model.generate(request(i))));
    edited.push(await time(() => model.generate({ ...request(i), edit })));
  }
  return { plain: summarize(plain), edit: summarize(edited) };
}

/** `count` distinct noisy 4096×4096 PNGs just under the byte limit: noise rows above flat grey ones. */
async function largestUploads(count: number): Promise<Buffer[]> {
  const side = IMAGE_INPUT_LIMITS.maxSide;
  const rowBytes = side * 3;
  // Noise does not compress: each noisy row costs its bytes (plus a filter byte); leave 256 KiB for the rest.
  const rows = Math.floor((IMAGE_INPUT_LIMITS.maxBytes - 256 * 1024) / (rowBytes + 1));
  const noise = randomBytes(rows * rowBytes + count * 7);
  const files: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const raw = Buffer.alloc(side * side * 3, 0x80);
    noise.copy(raw, 0, i * 7, i * 7 + rows * rowBytes);
    files.push(
      await sharp(raw, { raw: { width: side, height: side, channels: 3 } })
        .png()
        .toBuffer(),
    );
  }
  const largest = Math.max(...files.map((f) => f.length));
  if (largest > IMAGE_INPUT_LIMITS.maxBytes) throw new Error(`a bench upload is ${largest} bytes, over the limit`);
  return files;
}

/** Samples the gateway's own gauges (GET /metrics) until stopped; returns the peaks. */
function sampleGauges(base: string, everyMs = 200) {
  let external = 0;
  let heapUsed = 0;
  let running = true;
  const read = (text: string, name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+]+)`, 'm').exec(text)?.[1] ?? NaN) / 1024 / 1024;
  const loop = (async () => {
    while (running) {
      try {
        const text = await (await fetch(`${base}/metrics`)).text();
        external = Math.max(external, read(text, 'nodejs_external_memory_bytes') || 0);
        heapUsed = Math.max(heapUsed, read(text, 'nodejs_heap_size_used_bytes') || 0);
      } catch {
        // a missed sample
      }
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { externalMb: Math.round(external * 10) / 10, heapUsedMb: Math.round(heapUsed * 10) / 10 };
    },
  };
}

async function uploadRound(ctx: Ctx, name: string, accounts: BenchAccount[], files: Buffer[], retry: boolean): Promise<UploadRound> {
  const { stack, log } = ctx;
  const gateway = stack.gateway!;
  const statuses: Record<string, number> = {};
  let connectionErrors = 0;
  let attempts = 0;
  const storedAt: number[] = [];
  const rss = sampleRss(gateway.pid, 50);
  const gauges = sampleGauges(stack.baseUrl);
  const started = performance.now();
  await Promise.all(
    files.map(async (file, i) => {
      // In blocks: account 0 sends uploads 0 to 3, so its third is past its own limit before the process is full.
      const key = accounts[Math.floor((i * accounts.length) / files.length)].keys[0];
      for (let attempt = 1; attempt <= (retry ? MAX_ATTEMPTS : 1); attempt++) {
        attempts++;
        const answer = await sendUpload(stack.baseUrl, key, file);
        if (answer.status === 0) connectionErrors++;
        else statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (answer.status === 201 || answer.status === 200) {
          storedAt.push(performance.now() - started);
          return;
        }
        if (answer.status !== 429 && answer.status !== 503 && answer.status !== 0)
          throw new Error(`upload answered ${answer.status}: ${answer.body.slice(0, 200)}`);
        await sleep(1000);
      }
    }),
  );
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  const peakRssMb = Math.round(rss.stop());
  const { externalMb, heapUsedMb } = await gauges.stop();
  const round: UploadRound = {
    name,
    accounts: accounts.length,
    uploads: files.length,
    fileBytes: Math.max(...files.map((f) => f.length)),
    statuses,
    connectionErrors,
    attempts,
    stored: storedAt.length,
    seconds,
    storedMs: storedAt.length ? summarize(storedAt) : undefined,
    peakRssMb,
    vmHwmMb: Math.round(readMemory(gateway.pid)?.hwmMb ?? NaN),
    peakExternalMb: externalMb,
    peakHeapUsedMb: heapUsedMb,
  };
  log(
    `images: ${name}: ${JSON.stringify(statuses)}${connectionErrors ? `, ${connectionErrors} connection errors` : ''}, ${round.stored}/${files.length} stored in ${seconds} s (${attempts} attempts); gateway peak RSS ${peakRssMb} MB (VmHWM ${round.vmHwmMb}), external ≤ ${externalMb} MB, heap used ≤ ${heapUsedMb} MB`,
  );
  return round;
}

/** The production gateway's defaults: UPLOADS_IN_FLIGHT and UPLOADS_IN_FLIGHT_PER_ACCOUNT. */
const IN_FLIGHT = { perProcess: 4, perAccount: 2 };

export async function runUploadMemory(ctx: Ctx): Promise<UploadMemoryResult> {
  const { stack, log } = ctx;
  log(
    `images: making ${UPLOADS_AT_ONCE} noisy ${IMAGE_INPUT_LIMITS.maxSide}×${IMAGE_INPUT_LIMITS.maxSide} PNGs just under ${IMAGE_INPUT_LIMITS.maxBytes} bytes`,
  );
  const files = await largestUploads(UPLOADS_AT_ONCE);
  const accountsOf = (prefix: string) => Promise.all(Array.from({ length: UPLOAD_ACCOUNTS }, (_, a) => ctx.operator.benchAccount(`${prefix}-${a}`, 1)));
  const burstAccounts = await accountsOf('bench-upload-burst');
  const retryAccounts = await accountsOf('bench-upload-retry');
  // A fresh gateway, so its VmHWM is this phase's.
  await stack.stopGateway();
  const gateway = await stack.startGateway({
    env: { UPLOADS_IN_FLIGHT: String(IN_FLIGHT.perProcess), UPLOADS_IN_FLIGHT_PER_ACCOUNT: String(IN_FLIGHT.perAccount) },
  });
  await sleep(2000);
  const idleRssMb = readMemory(gateway.pid)?.rssMb;
  const rounds = [
    await uploadRound(ctx, `${UPLOADS_AT_ONCE} at once, each sent once`, burstAccounts, files, false),
    await uploadRound(ctx, `${UPLOADS_AT_ONCE} at once, each retried after Retry-After until stored`, retryAccounts, files, true),
  ];
  await sleep(2000);
  const afterRssMb = readMemory(gateway.pid)?.rssMb;
  // The next phases get a gateway as shipped, with its defaults.
  await stack.stopGateway();
  await stack.startGateway();
  return { inFlight: IN_FLIGHT, idleRssMb: idleRssMb && Math.round(idleRssMb), rounds, afterRssMb: afterRssMb && Math.round(afterRssMb) };
}

const f = (v: number | undefined, digits = 0) => (v === undefined || Number.isNaN(v) ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits }));

/** The phase's section of the results markdown. */
export function imagesInMarkdown(r: ImagesInResult | undefined): string[] {
  if (!r) return [];
  const out: string[] = ['## Images sent in', ''];
  const e = r.edits;
  if (e) {
    out.push(
      `Embedded service (\`npm start\`), model latency ${e.modelLatencyMs} ms, ${e.pairs} pairs one job at a time: an edit of a fresh ${e.size.split(' ')[0]} photo (JPEG, up to ${f(e.photoBytes / 1024)} kB) within a mask (${f(e.maskBytes / 1024)} kB PNG), and a plain generation of the same prompt; ${e.size} out, polled every ${e.pollEveryMs} ms. The uploads (photo, then mask) come before each edit and are timed apart.`,
      '',
      '| | p50 ms | p95 ms | max ms |',
      '|---|---|---|---|',
      `| plain generation, POST → completed | ${f(e.plainMs.p50)} | ${f(e.plainMs.p95)} | ${f(e.plainMs.max)} |`,
      `| edit with a mask, POST → completed | ${f(e.editMs.p50)} | ${f(e.editMs.p95)} | ${f(e.editMs.max)} |`,
      `| edit minus plain, pair by pair | ${f(e.overheadMs.p50)} | ${f(e.overheadMs.p95)} | ${f(e.overheadMs.max)} |`,
      `| uploads before an edit (photo + mask) | ${f(e.uploadMs.p50)} | ${f(e.uploadMs.p95)} | ${f(e.uploadMs.max)} |`,
      '',
      `The built-in model's call alone (no latency added, in the bench process): plain p50 ${f(e.modelAloneMs.plain.p50)} ms, edit p50 ${f(e.modelAloneMs.edit.p50)} ms. Below the ${e.modelLatencyMs} ms latency both calls take ${e.modelLatencyMs} ms; above it the edit's drawing is part of its overhead.`,
      '',
    );
  }
  const u = r.uploads;
  if (u) {
    out.push(
      `Production gateway (fresh process, UPLOADS_IN_FLIGHT ${u.inFlight.perProcess}, UPLOADS_IN_FLIGHT_PER_ACCOUNT ${u.inFlight.perAccount}): ${u.rounds[0]?.uploads ?? 0} uploads of a noisy 4096×4096 PNG of ${f((u.rounds[0]?.fileBytes ?? 0) / 1024 / 1024, 2)} MiB sent at once from ${u.rounds[0]?.accounts ?? 0} accounts. Idle RSS ${f(u.idleRssMb)} MB, ${f(u.afterRssMb)} MB two seconds after.`,
      '',
      '| Round | answers | stored | attempts | seconds | time to 201 p50 / max ms | peak RSS MB (VmHWM) | peak external MB | peak V8 heap used MB |',
      '|---|---|---|---|---|---|---|---|---|',
      ...u.rounds.map(
        (x) =>
          `| ${x.name} | ${Object.entries(x.statuses)
            .map(([s, n]) => `${n}× ${s}`)
            .join(
              ', ',
            )}${x.connectionErrors ? `, ${x.connectionErrors}× no answer` : ''} | ${x.stored}/${x.uploads} | ${x.attempts} | ${f(x.seconds, 1)} | ${x.storedMs ? `${f(x.storedMs.p50)} / ${f(x.storedMs.max)}` : '–'} | ${f(x.peakRssMb)} (${f(x.vmHwmMb)}) | ${f(x.peakExternalMb)} | ${f(x.peakHeapUsedMb)} |`,
      ),
      '',
    );
  }
  return out;
}
