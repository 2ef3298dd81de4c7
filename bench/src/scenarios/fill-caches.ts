/**
 * Fills the gateway's in-process caches from outside, with the largest entries a caller can cause,
 * so the memory phase can measure the gateway with every cache at its byte budget:
 * - the render-cache memo and the prompt-safety verdicts: embed batches of prompts of 2,000 two-byte
 *   characters, each with 50 stored images (rows written straight into the bench database: making
 *   50,000 images through the worker would take the whole bench);
 * - the key cache: requests with well-formed keys that do not exist (remembered as unknown);
 * - the permalink cache: 200-character handles and names that match nothing (remembered as such).
 */
import { randomBytes } from 'node:crypto';
import type { BenchAccount } from '../api';
import type { Ctx } from '../context';

const PROMPTS = 1200;
const IMAGES_PER_PROMPT = 50;
const PARALLEL = 8;

// The index in Cyrillic letters: the prompt screen reads some numbers as leetspeak (455, 717).
const DIGITS = 'абвгдежзий';
const longPrompt = (i: number) => `${[...String(i)].map((c) => DIGITS[Number(c)]).join('')} ${'ж'.repeat(1995)}`;

async function inParallel(n: number, one: (i: number) => Promise<void>, stop: () => boolean) {
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < n && !stop()) await one(next++);
    }),
  );
}

/** The gateway's own estimate of each cache's bytes (`promptpix_gateway_cache_bytes`), in MB. */
export async function cacheMegabytes(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^promptpix_gateway_cache_bytes\{cache="(\w+)"\} ([\d.e+]+)$/gm)) out[m[1]] = Math.round((Number(m[2]) / 2 ** 20) * 10) / 10;
  return out;
}

/** An account whose 1,200 prompts of 2,000 two-byte characters have 50 stored images each. */
export async function fillAccount(ctx: Ctx): Promise<BenchAccount> {
  const account = await ctx.operator.benchAccount(`bench-fill-${randomBytes(3).toString('hex')}`, 8);
  await ctx.stack.sql.query(
    `INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes")
     SELECT gen_random_uuid(), $1, p.text, p.text, 1024 - n, 1024 - n, 'webp', 1000000 + i * 100 + n, 'images/' || md5(p.text || n) || '.webp', 1000
     FROM generate_series(0, $2 - 1) AS i, generate_series(0, $3 - 1) AS n, LATERAL (SELECT translate(i::text, '0123456789', '${DIGITS}') || ' ' || repeat('ж', 1995) AS text) AS p`,
    [account.id, PROMPTS, IMAGES_PER_PROMPT],
  );
  return account;
}

/**
 * One pass over every cache: embed batches of all the account's prompts (more than the memo
 * holds, so a second pass reads them again), 12,000 unknown keys, 5,000 unknown permalinks
 * (`round` makes the keys and names new ones), or as much of it as is sent before `stop()`.
 */
export async function fillGatewayCaches(
  ctx: Ctx,
  account: BenchAccount,
  round = 0,
  stop: () => boolean = () => false,
): Promise<{ requests: number; caches: Record<string, number> }> {
  const base = ctx.stack.baseUrl;
  let requests = 0;
  const batches = Math.ceil(PROMPTS / 50);
  await inParallel(
    batches,
    async (b) => {
      const elements = Array.from({ length: 50 }, (_, j) => ({ id: `e${j}`, prompt: longPrompt(b * 50 + j) }));
      const res = await fetch(`${base}/api/v1/embed/resolve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.keys[b % account.keys.length]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ elements }),
      });
      const body = (await res.json()) as { results?: Array<{ status: string; error?: string }> };
      requests++;
      const notReady = body.results?.find((r) => r.status !== 'ready');
      if (!res.ok || notReady) throw new Error(`fill: embed batch ${b}: HTTP ${res.status} ${JSON.stringify(notReady ?? body).slice(0, 300)}`);
    },
    stop,
  );
  await inParallel(
    12_000,
    async () => {
      await (
        await fetch(`${base}/api/v1/job/00000000-0000-4000-8000-000000000000`, {
          headers: { authorization: `Bearer sk_live_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x')}` },
        })
      ).arrayBuffer();
      requests++;
    },
    stop,
  );
  await inParallel(
    5_000,
    async (i) => {
      const name = (c: string) => `${round}-${i}`.padStart(200, c);
      await (await fetch(`${base}/api/img/${name('h')}/${name('n')}`, { redirect: 'manual' })).arrayBuffer();
      requests++;
    },
    stop,
  );
  return { requests, caches: await cacheMegabytes(base) };
}
