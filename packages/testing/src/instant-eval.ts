/**
 * Measures instant mode's matching by meaning on the project's evaluation set: the subjects go
 * into a real library (PostgreSQL or PGlite), the indexer embeds them, and every paraphrase and
 * unrelated query goes through the instant service itself. Used by the bench's `meaning` phase
 * and by the embedded default's floor test.
 */
import { createInstantService, createLibraryIndexer, type PromptEmbedder } from '@promptpix/core';
import { createLibraryRepository, type Database } from '@promptpix/db';
import { EVAL_SUBJECTS, UNRELATED_QUERIES, type EvalSplit } from './instant-eval-set';

export interface InstantEvalFigures {
  paraphrases: number;
  recallAt1: number;
  unrelated: number;
  falseMatchRate: number;
}

export interface InstantEvalResult {
  adapter: string;
  subjects: number;
  paraphrases: number;
  /** Paraphrases answered with their own subject. */
  recallAt1: number;
  unrelated: number;
  /** Unrelated queries answered with any image (they should all be 404). */
  falseMatchRate: number;
  /** The same figures for the subjects tuned on and for the held-out ones (see EvalSplit), for the splits asked. */
  bySplit: Partial<Record<EvalSplit, InstantEvalFigures>>;
  /** Paraphrases answered with another subject or nothing: what to look at. */
  misses: Array<{ split: EvalSplit; query: string; expected: string; got: string | null; score: number | null }>;
  falseMatches: Array<{ split: EvalSplit; query: string; got: string; score: number }>;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * `splits` chooses the subjects that go into the library and the queries asked: the tuning split
 * alone is the set as it was tuned (55 subjects); both splits make a larger library, where a
 * paraphrase has more subjects to be confused with and an unrelated query more to collide with.
 */
export async function evaluateInstantMatching(
  db: Database,
  embedder: PromptEmbedder | null,
  minScore: number,
  splits: EvalSplit[] = ['tuning', 'held-out'],
): Promise<InstantEvalResult> {
  const subjects = EVAL_SUBJECTS.filter((s) => splits.includes(s.split));
  const unrelatedQueries = UNRELATED_QUERIES.filter((u) => splits.includes(u.split));
  const handle = `eval-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const account = await db.prisma.account.create({ data: { handle, email: `${handle}@localhost` } });
  const prompts = subjects.map((s) => s.prompt);
  await db.prisma.$executeRaw`
    INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes", "createdAt")
    SELECT gen_random_uuid(), ${account.id}::uuid, p, p, 1024, 1024, 'webp', n, 'images/eval-' || n || '.webp', 1, now() - interval '1 day'
    FROM unnest(${prompts}::text[]) WITH ORDINALITY AS t(p, n)`;
  const library = createLibraryRepository(db.prisma);
  if (embedder) await createLibraryIndexer({ library, embedder }).indexPending();
  // The queries are sent as the indexer's texts are, without `purpose: 'query'`: this measures the
  // matcher, and 215 queries of new words in a few seconds would otherwise meet the budget that
  // bounds what callers' new words may cost (cold-word-budget.ts).
  const matcher: PromptEmbedder | undefined = embedder
    ? { space: embedder.space, calibration: embedder.calibration, embed: (texts) => embedder.embed(texts) }
    : undefined;
  const instant = createInstantService({
    library,
    embedder: matcher,
    saveCopy: async () => undefined,
    storage: { publicUrl: (key) => key },
    now: () => new Date(),
    libraryDelaySeconds: 0,
    minScore,
  });
  const promptOf = new Map(
    (await db.prisma.image.findMany({ where: { accountId: account.id }, select: { id: true, prompt: true } })).map((i) => [i.id, i.prompt]),
  );
  const ask = async (query: string) => {
    const result = await instant.match(account.id, { prompt: query });
    return result ? { prompt: promptOf.get(result.poolImageId) ?? null, score: result.matchScore } : null;
  };

  const misses: InstantEvalResult['misses'] = [];
  for (const subject of subjects) {
    for (const query of subject.paraphrases) {
      const answer = await ask(query);
      if (answer?.prompt !== subject.prompt)
        misses.push({ split: subject.split, query, expected: subject.prompt, got: answer?.prompt ?? null, score: answer?.score ?? null });
    }
  }
  const falseMatches: InstantEvalResult['falseMatches'] = [];
  for (const { query, split } of unrelatedQueries) {
    const answer = await ask(query);
    if (answer) falseMatches.push({ split, query, got: answer.prompt ?? '?', score: answer.score });
  }
  await db.prisma.account.delete({ where: { id: account.id } });
  const figures = (split?: EvalSplit): InstantEvalFigures => {
    const inSplit = <T extends { split: EvalSplit }>(list: T[]) => list.filter((item) => split === undefined || item.split === split);
    const paraphrases = inSplit(subjects).reduce((sum, s) => sum + s.paraphrases.length, 0);
    const unrelated = inSplit(unrelatedQueries).length;
    return {
      paraphrases,
      recallAt1: round((paraphrases - inSplit(misses).length) / paraphrases),
      unrelated,
      falseMatchRate: round(inSplit(falseMatches).length / unrelated),
    };
  };
  return {
    adapter: embedder?.space ?? 'off (trigram only)',
    subjects: subjects.length,
    ...figures(),
    bySplit: Object.fromEntries(splits.map((split) => [split, figures(split)])),
    misses,
    falseMatches,
  };
}
