/**
 * Instant mode's nearest match as the shared library grows from 1,000 to 100,000 images of a
 * varied corpus (library-corpus.ts). Rows are bulk-inserted (originals: "sourceImageId" NULL,
 * created 40 days ago, so past LIBRARY_DELAY_SECONDS); the worker's library indexer then embeds
 * them, and the phase waits for it before measuring. The queries are the evaluation set's
 * paraphrases. Latency is measured at low concurrency (4 connections): the question is how one
 * lookup scales, not throughput.
 */
import type { BenchAccount } from '../api';
import type { Ctx } from '../context';
import { countWire, type WireCost } from '../count';
import { runAutocannon, type LoadTarget } from '../load';
import { measure, type Measurement } from '../measure';
import { normalizePrompt } from '@promptpix/core';
import { nearestLibraryImageSql } from '@promptpix/db';
import { createEmbeddedEmbedder } from '@promptpix/models';
import { EVAL_SUBJECTS } from '@promptpix/testing/instant-eval-set';
import { corpusPrompts } from './library-corpus';

/** What callers type: the evaluation set's paraphrases (the tuning split's 110, as in earlier runs). */
const QUERIES = EVAL_SUBJECTS.filter((subject) => subject.split === 'tuning').flatMap((subject) => subject.paraphrases);
/** The longest the phase waits for the worker to embed a batch of new library rows. */
const INDEX_WAIT_MS = 15 * 60_000;

export interface InstantPoint {
  libraryImages: number;
  measurement: Measurement;
  /** EXPLAIN ANALYZE of one nearest-match query, ms. */
  explainMs: { planning: number; execution: number; sample: string; plan: string };
  statusCounts: Record<string, number>;
  wire?: WireCost;
}

export interface InstantResult {
  connections: number;
  queries: number;
  points: InstantPoint[];
  /** p50 at 100k / p50 at 1k. */
  p50Growth: number;
}

async function addLibraryRows(ctx: Ctx, accountId: string, from: number, to: number) {
  for (let start = from; start <= to; start += 5000) {
    await ctx.stack.sql.query(
      `INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes", "createdAt")
       SELECT gen_random_uuid(), $1::uuid, p, p, 1024, 1024, 'webp', $2::int + n::int, 'images/lib-' || ($2::int + n::int) || '.webp', 1, now() - interval '40 days'
       FROM unnest($3::text[]) WITH ORDINALITY AS t(p, n)`,
      [accountId, start, corpusPrompts(start, Math.min(to, start + 4999))],
    );
  }
  await ctx.stack.sql.query('ANALYZE "Image"');
}

/** Waits until the worker's library indexer has embedded every original; seconds it took. */
async function waitForIndexing(ctx: Ctx): Promise<number> {
  const started = Date.now();
  for (;;) {
    const { rows } = await ctx.stack.sql.query<{ n: string }>(`SELECT count(*) AS n FROM "Image" WHERE "sourceImageId" IS NULL AND "meaningSpace" IS NULL`);
    if (Number(rows[0].n) === 0) return (Date.now() - started) / 1000;
    if (Date.now() - started > INDEX_WAIT_MS) throw new Error(`instant: ${rows[0].n} library rows still not embedded after ${INDEX_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function explain(ctx: Ctx, prompt: string) {
  const embedder = createEmbeddedEmbedder();
  const normalizedPrompt = normalizePrompt(prompt);
  const [vector] = await embedder.embed([normalizedPrompt]);
  const query = nearestLibraryImageSql({
    normalizedPrompt,
    style: null,
    joinedBefore: new Date(Date.now() - 30 * 86400_000),
    meaning: { space: embedder.space, vector },
  });
  const { rows } = await ctx.stack.sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, FORMAT TEXT) ${query.text}`, query.values as unknown[]);
  const text = rows.map((r) => r['QUERY PLAN']).join('\n');
  return {
    planning: Number(/Planning Time: ([\d.]+)/.exec(text)?.[1] ?? NaN),
    execution: Number(/Execution Time: ([\d.]+)/.exec(text)?.[1] ?? NaN),
    sample: prompt,
    plan: text,
  };
}

export async function runInstantPhase(ctx: Ctx, acc: BenchAccount, libraryAccountId: string): Promise<InstantResult> {
  const { stack, config, log } = ctx;
  const connections = 4;
  const target: LoadTarget = {
    base: stack.baseUrl,
    request: { method: 'POST', path: '/api/v1/generate', headers: { 'content-type': 'application/json' } },
    vary: (i) => ({
      headers: { authorization: `Bearer ${acc.keys[i % acc.keys.length]}` },
      body: JSON.stringify({ prompt: QUERIES[i % QUERIES.length], mode: 'instant' }),
    }),
  };
  const points: InstantPoint[] = [];
  let have = 0;
  for (const size of [1_000, 100_000]) {
    log(`instant: library of ${size} images`);
    await addLibraryRows(ctx, libraryAccountId, have + 1, size);
    have = size;
    const indexSeconds = await waitForIndexing(ctx);
    // Steady state, as autovacuum leaves it: the backfill's updates leave dead index entries until then.
    await ctx.stack.sql.query('VACUUM ANALYZE "Image"');
    log(`instant:   the worker embedded the new rows in ${indexSeconds.toFixed(1)} s`);
    await runAutocannon(target, { connections, durationS: config.warmupS }).done;
    const m = await measure(() => runAutocannon(target, { connections, durationS: Math.min(8, config.durationS) }), { serverPid: stack.gateway!.pid });
    const e = await explain(ctx, QUERIES[0]);
    const wire = ctx.counting ? await countWire(ctx.counting, target, { requests: 45, offset: 0, warmup: 5 }) : undefined;
    points.push({ libraryImages: size, measurement: m, explainMs: e, statusCounts: m.load.statusCounts, wire });
    log(
      `instant:   ${m.load.okRps} req/s, p50 ${m.load.latencyMs.p50} ms, p99 ${m.load.latencyMs.p99} ms, statuses ${JSON.stringify(m.load.statusCounts)}; EXPLAIN execution ${e.execution} ms`,
    );
  }
  return {
    connections,
    queries: QUERIES.length,
    points,
    p50Growth: Math.round((points[1].measurement.load.latencyMs.p50 / points[0].measurement.load.latencyMs.p50) * 100) / 100,
  };
}
