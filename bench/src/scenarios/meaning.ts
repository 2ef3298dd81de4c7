/**
 * The `meaning` phase: instant mode's matching by meaning, measured without HTTP.
 * 1. Quality: recall@1 and the false-match rate of each adapter on the project's evaluation set
 *    (packages/testing/src/instant-eval-set.ts), through the real instant service on PGlite.
 * 2. Scale: the library query (lexical + by meaning) over a varied corpus of 1,000 and then
 *    100,000 images, on PostgreSQL and on PGlite, with the query plan. The evaluation set's
 *    paraphrases are the queries (what people type), run one at a time.
 */
import { normalizePrompt, type PromptEmbedder } from '@promptpix/core';
import { createLibraryRepository, type Database } from '@promptpix/db';
import { bothDatabases } from '@promptpix/db/testing';
import { Prisma } from '@promptpix/db';
import { nearestLibraryImageSql, type LibraryQuery } from '@promptpix/db';
import { createLibraryIndexer } from '@promptpix/core';
import { createEmbeddedEmbedder, createPromptEmbedder, createWordNetEmbedder } from '@promptpix/models';
import { loadConfig } from '@promptpix/runtime';
import { evaluateInstantMatching, type InstantEvalResult } from '@promptpix/testing/instant-eval';
import { EVAL_SUBJECTS } from '@promptpix/testing/instant-eval-set';
import { CORPUS_SHAPE, corpusPrompts } from './library-corpus';

export interface MeaningScalePoint {
  libraryImages: number;
  /** Seconds to embed the rows added for this point (the indexer, batches of 500). */
  indexSeconds: number;
  queries: number;
  p50Ms: number;
  p95Ms: number;
  /** Queries answered above the default minimum score. */
  answered: number;
  plan: string;
}

export interface MeaningScale {
  database: string;
  points: MeaningScalePoint[];
  /** p50 at 100k / p50 at 1k. */
  p50Growth: number;
}

export interface MeaningResult {
  evaluation: InstantEvalResult[];
  corpus: typeof CORPUS_SHAPE;
  scale: MeaningScale[];
}

const SIZES = [1_000, 100_000];

/** The tuning split's 110 paraphrases, so timings stay comparable with earlier runs. */
const QUERIES = EVAL_SUBJECTS.filter((s) => s.split === 'tuning').flatMap((s) => s.paraphrases);

/**
 * The adapters to evaluate: the embedded default (WordNet + GloVe), WordNet concepts alone (its
 * fallback without the word-vector file), none (trigram only), and the configured upstream or local model if any.
 */
function adapters(): Array<PromptEmbedder | null> {
  const list: Array<PromptEmbedder | null> = [createEmbeddedEmbedder(), createWordNetEmbedder(), null];
  const configured = loadConfig().instantEmbeddings;
  if (configured.kind === 'openai' || configured.kind === 'local') list.push(createPromptEmbedder(configured));
  return list;
}

async function addCorpus(db: Database, accountId: string, from: number, to: number) {
  for (let start = from; start <= to; start += 5000) {
    const prompts = corpusPrompts(start, Math.min(to, start + 4999));
    await db.prisma.$executeRaw`
      INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes", "createdAt")
      SELECT gen_random_uuid(), ${accountId}::uuid, p, p, 1024, 1024, 'webp', ${start}::int + n::int, 'images/corpus-' || (${start}::int + n::int) || '.webp', 1, now() - interval '40 days'
      FROM unnest(${prompts}::text[]) WITH ORDINALITY AS t(p, n)`;
  }
}

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function measureScale(name: string, db: Database, log: (line: string) => void): Promise<MeaningScale> {
  const embedder = createEmbeddedEmbedder();
  const library = createLibraryRepository(db.prisma);
  const indexer = createLibraryIndexer({ library, embedder, batchSize: 500 });
  const account = await db.prisma.account.create({ data: { handle: `bench-meaning-${Date.now().toString(36)}`, email: 'bench@localhost' } });
  const queries: LibraryQuery[] = [];
  for (const prompt of QUERIES) {
    const normalizedPrompt = normalizePrompt(prompt);
    const [vector] = await embedder.embed([normalizedPrompt]);
    queries.push({ normalizedPrompt, style: null, joinedBefore: new Date(Date.now() - 30 * 86400_000), meaning: { space: embedder.space, vector } });
  }
  const points: MeaningScalePoint[] = [];
  let have = 0;
  for (const size of SIZES) {
    await addCorpus(db, account.id, have + 1, size);
    have = size;
    const started = Date.now();
    await indexer.indexPending();
    const indexSeconds = (Date.now() - started) / 1000;
    // Steady state, as autovacuum leaves it: the backfill's updates leave dead index entries until then.
    await db.prisma.$executeRawUnsafe('VACUUM ANALYZE "Image"');
    for (const q of queries.slice(0, 10)) await library.candidates(q); // warm-up
    const times: number[] = [];
    let answered = 0;
    for (const q of queries) {
      const t0 = process.hrtime.bigint();
      const rows = await library.candidates(q);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (
        rows.some((r) => (r.cosine ?? 0) >= embedder.calibration.floor + 0.3 * (embedder.calibration.ceiling - embedder.calibration.floor) || r.trigram >= 0.3)
      )
        answered++;
    }
    times.sort((a, b) => a - b);
    const planRows = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': string }>>(Prisma.sql`EXPLAIN (ANALYZE, COSTS OFF) ${nearestLibraryImageSql(queries[0])}`);
    const plan = planRows.map((r) => r['QUERY PLAN']).join('\n');
    const point = {
      libraryImages: size,
      indexSeconds,
      queries: queries.length,
      p50Ms: round(percentile(times, 0.5)),
      p95Ms: round(percentile(times, 0.95)),
      answered,
      plan,
    };
    points.push(point);
    log(
      `meaning: ${name} ${size} images: p50 ${point.p50Ms} ms, p95 ${point.p95Ms} ms, ${answered}/${queries.length} answered; indexing took ${indexSeconds.toFixed(1)} s`,
    );
  }
  return { database: name, points, p50Growth: round(points[1].p50Ms / points[0].p50Ms) };
}

const round = (n: number) => Math.round(n * 100) / 100;

export async function runMeaningPhase(log: (line: string) => void): Promise<MeaningResult> {
  const evaluation: InstantEvalResult[] = [];
  {
    const { db, cleanup } = await bothDatabases.find(([name]) => name === 'pglite')![1]();
    try {
      for (const embedder of adapters()) {
        const result = await evaluateInstantMatching(db, embedder, 0.3);
        evaluation.push(result);
        log(
          `meaning: ${result.adapter}: recall@1 ${result.recallAt1} on ${result.paraphrases} paraphrases, ${result.falseMatchRate} of ${result.unrelated} unrelated queries answered`,
        );
        for (const [split, f] of Object.entries(result.bySplit))
          log(`meaning: ${result.adapter}, ${split}: recall@1 ${f.recallAt1} on ${f.paraphrases}, ${f.falseMatchRate} of ${f.unrelated} unrelated answered`);
        if (embedder) {
          // The tuning subjects alone: the library the matcher was tuned on, comparable with earlier runs.
          // The tuning subjects alone: the library the matcher was tuned on, comparable with earlier runs;
          // the held-out ones alone: the same size of library, on prompts it was never fitted to.
          for (const split of ['tuning', 'held-out'] as const) {
            const alone = await evaluateInstantMatching(db, embedder, 0.3, [split]);
            evaluation.push(alone);
            log(
              `meaning: ${alone.adapter}, ${split} subjects alone (${alone.subjects}): recall@1 ${alone.recallAt1}, ${alone.falseMatchRate} of ${alone.unrelated} unrelated answered`,
            );
          }
        }
      }
    } finally {
      await cleanup();
    }
  }
  const scale: MeaningScale[] = [];
  for (const [name, open] of bothDatabases) {
    const { db, cleanup } = await open();
    try {
      scale.push(await measureScale(name, db, log));
    } finally {
      await cleanup();
    }
  }
  return { evaluation, corpus: CORPUS_SHAPE, scale };
}
