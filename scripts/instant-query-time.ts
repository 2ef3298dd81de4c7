/**
 * The instant service's latency on a library of the bench's corpus (bench/src/scenarios/library-corpus.ts),
 * in process on a fresh migrated database: N rows inserted, embedded by the library indexer with the
 * embedded default, then the evaluation set's 110 tuning paraphrases asked one at a time, twice
 * (after 20 warm-up queries), encoding included. A quick comparison of two versions of the encoder
 * (run it in each checkout, alternating), not the bench's `instant` phase (HTTP, both sizes at once).
 *
 *   N=20000 npx tsx scripts/instant-query-time.ts          # PGlite
 *   DB=postgres N=1000 npx tsx scripts/instant-query-time.ts
 */
import { createInstantService, createLibraryIndexer } from '@promptpix/core';
import { createLibraryRepository } from '@promptpix/db';
import { bothDatabases } from '@promptpix/db/testing';
import { createEmbeddedEmbedder } from '@promptpix/models';
import { EVAL_SUBJECTS } from '@promptpix/testing/instant-eval-set';
import { corpusPrompts } from '../bench/src/scenarios/library-corpus';

const N = Number(process.env.N ?? 1000);
const DB = process.env.DB ?? 'pglite';

async function main() {
  const { db, cleanup } = await bothDatabases.find(([name]) => name === DB)![1]();
  try {
    const account = await db.prisma.account.create({ data: { handle: 'query-time', email: 'query-time@localhost' } });
    for (let start = 1; start <= N; start += 5000) {
      const prompts = corpusPrompts(start, Math.min(N, start + 4999));
      await db.prisma.$executeRaw`
        INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes", "createdAt")
        SELECT gen_random_uuid(), ${account.id}::uuid, p, p, 1024, 1024, 'webp', ${start}::int + n::int, 'images/lib-' || (${start}::int + n::int) || '.webp', 1, now() - interval '40 days'
        FROM unnest(${prompts}::text[]) WITH ORDINALITY AS t(p, n)`;
    }
    const embedder = createEmbeddedEmbedder();
    const library = createLibraryRepository(db.prisma);
    const started = Date.now();
    await createLibraryIndexer({ library, embedder }).indexPending();
    await db.prisma.$executeRawUnsafe('ANALYZE "Image"');
    const indexSeconds = (Date.now() - started) / 1000;
    const instant = createInstantService({
      library,
      // Without `purpose: 'query'`, as instant-eval.ts does: the cold-word budget is not measured here.
      embedder: { space: embedder.space, calibration: embedder.calibration, embed: (texts) => embedder.embed(texts) },
      saveCopy: async () => undefined,
      storage: { publicUrl: (key) => key },
      now: () => new Date(),
      libraryDelaySeconds: 0,
      minScore: 0.3,
    });
    const queries = EVAL_SUBJECTS.filter((s) => s.split === 'tuning').flatMap((s) => s.paraphrases);
    for (const query of queries.slice(0, 20)) await instant.match(account.id, { prompt: query });
    const times: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (const query of queries) {
        const start = process.hrtime.bigint();
        await instant.match(account.id, { prompt: query });
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))].toFixed(2);
    console.log(`${embedder.space} on ${DB}, ${N} rows (embedded in ${indexSeconds} s): p50 ${at(0.5)} ms, p90 ${at(0.9)} ms over ${times.length} queries`);
    embedder.close();
  } finally {
    await cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
