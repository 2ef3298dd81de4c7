/**
 * Instant mode's nearest match as the shared library grows from 1,000 to 100,000 images.
 * Library rows are bulk-inserted with one INSERT ... SELECT generate_series (originals:
 * "sourceImageId" NULL, created 40 days ago, so past LIBRARY_DELAY_SECONDS), like
 * packages/db/src/repositories/library.int.test.ts. Latency is measured at low concurrency
 * (4 connections): the question is how one lookup scales, not throughput.
 */
import type { BenchAccount } from '../api';
import type { Ctx } from '../context';
import { countWire, type WireCost } from '../count';
import { runAutocannon, type LoadTarget } from '../load';
import { measure, type Measurement } from '../measure';

const SUBJECTS = ['fox', 'lighthouse', 'castle', 'robot', 'dragon', 'garden', 'harbour', 'city', 'forest', 'desert', 'owl', 'train', 'violin', 'comet', 'bakery'];
const SETTINGS = ['at dawn', 'in the rain', 'under stars', 'in winter', 'by the sea', 'on a hill', 'at noon', 'in fog'];
/** What callers type: the library's wording without the number, reordered, or with another number (all match at 1k and 100k). */
const QUERIES = [
  ...SUBJECTS.map((s, i) => `a ${s} ${SETTINGS[i % SETTINGS.length]}`),
  ...SUBJECTS.map((s, i) => `${s} ${SETTINGS[(i + 3) % SETTINGS.length]}`),
  ...SUBJECTS.map((s, i) => `a ${s} ${SETTINGS[(i + 5) % SETTINGS.length]} number ${((i * 37) % 900) + 1}`),
];

export interface InstantPoint {
  libraryImages: number;
  measurement: Measurement;
  /** EXPLAIN ANALYZE of one nearest-match query, ms. */
  explainMs: { planning: number; execution: number; sample: string };
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
  await ctx.stack.sql.query(
    `INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes", "tags", "createdAt")
     SELECT gen_random_uuid(), $1::uuid, p, p, 1024, 1024, 'webp', i, 'images/lib-' || i || '.webp', 1,
            ARRAY[CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END], now() - interval '40 days'
     FROM (
       SELECT i, 'a ' || ($2::text[])[1 + i % cardinality($2::text[])] || ' ' || ($3::text[])[1 + (i / cardinality($2::text[])) % cardinality($3::text[])] || ' number ' || i AS p
       FROM generate_series($4::int, $5::int) AS i
     ) AS rows`,
    [accountId, SUBJECTS, SETTINGS, from, to],
  );
  await ctx.stack.sql.query('ANALYZE "Image"');
}

async function explain(ctx: Ctx, prompt: string) {
  const { rows } = await ctx.stack.sql.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, FORMAT TEXT)
     SELECT "id", similarity("normalizedPrompt", $1) AS "score" FROM "Image"
     WHERE "normalizedPrompt" % $1 AND "sourceImageId" IS NULL AND "createdAt" <= now() - interval '30 days' AND "style" IS NOT DISTINCT FROM NULL
     ORDER BY "normalizedPrompt" <-> $1 LIMIT 1`,
    [prompt],
  );
  const text = rows.map((r) => r['QUERY PLAN']).join('\n');
  return {
    planning: Number(/Planning Time: ([\d.]+)/.exec(text)?.[1] ?? NaN),
    execution: Number(/Execution Time: ([\d.]+)/.exec(text)?.[1] ?? NaN),
    sample: prompt,
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
    await runAutocannon(target, { connections, durationS: config.warmupS }).done;
    const m = await measure(() => runAutocannon(target, { connections, durationS: Math.min(8, config.durationS) }), { serverPid: stack.gateway!.pid });
    const e = await explain(ctx, QUERIES[0]);
    const wire = ctx.counting ? await countWire(ctx.counting, target, { requests: 45, offset: 0, warmup: 5 }) : undefined;
    points.push({ libraryImages: size, measurement: m, explainMs: e, statusCounts: m.load.statusCounts, wire });
    log(`instant:   ${m.load.okRps} req/s, p50 ${m.load.latencyMs.p50} ms, p99 ${m.load.latencyMs.p99} ms, statuses ${JSON.stringify(m.load.statusCounts)}; EXPLAIN execution ${e.execution} ms`);
  }
  return {
    connections,
    queries: QUERIES.length,
    points,
    p50Growth: Math.round((points[1].measurement.load.latencyMs.p50 / points[0].measurement.load.latencyMs.p50) * 100) / 100,
  };
}
