/**
 * Measures instant mode's matching by meaning on the project's evaluation set: the subjects go
 * into a real library (PostgreSQL or PGlite), the indexer embeds them, and every paraphrase and
 * unrelated query goes through the instant service itself. Used by the bench's `meaning` phase
 * and by the embedded default's floor test.
 */
import { createInstantService, createLibraryIndexer, type PromptEmbedder } from '@promptpix/core';
import { createLibraryRepository, type Database } from '@promptpix/db';
import { EVAL_SUBJECTS, UNRELATED_QUERIES } from '@promptpix/testing/src/instant-eval-set';

export interface InstantEvalResult {
  adapter: string;
  subjects: number;
  paraphrases: number;
  /** Paraphrases answered with their own subject. */
  recallAt1: number;
  unrelated: number;
  /** Unrelated queries answered with any image (they should all be 404). */
  falseMatchRate: number;
  /** Paraphrases answered with another subject or nothing: what to look at. */
  misses: Array<{ query: string; expected: string; got: string | null; score: number | null }>;
  falseMatches: Array<{ query: string; got: string; score: number }>;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export async function evaluateInstantMatching(db: Database, embedder: PromptEmbedder | null, minScore: number): Promise<InstantEvalResult> {
  const handle = `eval-${Date.now().toString(36)}`;
  const account = await db.prisma.account.create({ data: { handle, email: `${handle}@localhost` } });
  const prompts = EVAL_SUBJECTS.map((s) => s.prompt);
  await db.prisma.$executeRaw`
    INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes", "createdAt")
    SELECT gen_random_uuid(), ${account.id}::uuid, p, p, 1024, 1024, 'webp', n, 'images/eval-' || n || '.webp', 1, now() - interval '1 day'
    FROM unnest(${prompts}::text[]) WITH ORDINALITY AS t(p, n)`;
  const library = createLibraryRepository(db.prisma);
  if (embedder) await createLibraryIndexer({ library, embedder }).indexPending();
  const instant = createInstantService({
    library,
    embedder: embedder ?? undefined,
    saveCopy: async () => undefined,
    storage: { publicUrl: (key) => key },
    now: () => new Date(),
    libraryDelaySeconds: 0,
    minScore,
  });
  const promptOf = new Map((await db.prisma.image.findMany({ where: { accountId: account.id }, select: { id: true, prompt: true } })).map((i) => [i.id, i.prompt]));
  const ask = async (query: string) => {
    const result = await instant.match(account.id, { prompt: query });
    return result ? { prompt: promptOf.get(result.poolImageId) ?? null, score: result.matchScore } : null;
  };

  const misses: InstantEvalResult['misses'] = [];
  let paraphrases = 0;
  for (const subject of EVAL_SUBJECTS) {
    for (const query of subject.paraphrases) {
      paraphrases++;
      const answer = await ask(query);
      if (answer?.prompt !== subject.prompt) misses.push({ query, expected: subject.prompt, got: answer?.prompt ?? null, score: answer?.score ?? null });
    }
  }
  const falseMatches: InstantEvalResult['falseMatches'] = [];
  for (const query of UNRELATED_QUERIES) {
    const answer = await ask(query);
    if (answer) falseMatches.push({ query, got: answer.prompt ?? '?', score: answer.score });
  }
  await db.prisma.account.delete({ where: { id: account.id } });
  return {
    adapter: embedder?.space ?? 'off (trigram only)',
    subjects: EVAL_SUBJECTS.length,
    paraphrases,
    recallAt1: round((paraphrases - misses.length) / paraphrases),
    unrelated: UNRELATED_QUERIES.length,
    falseMatchRate: round(falseMatches.length / UNRELATED_QUERIES.length),
    misses,
    falseMatches,
  };
}
