import { createWordNetEmbedder } from '@promptpix/models';
import { bothDatabases } from '@promptpix/db/src/testing';
import { evaluateInstantMatching } from './instant-eval';

/**
 * The embedded default's floor on the project's evaluation set (the bench's `meaning` phase prints
 * the same figures). Raise the floors when the matcher improves; never lower them to pass.
 */
const RECALL_FLOOR = 0.62;
const FALSE_MATCH_CEILING = 0.1;

describe.each(bothDatabases)('instant matching by meaning on the evaluation set (%s)', (_name, open) => {
  it('the embedded WordNet default finds paraphrases and leaves unrelated queries unanswered', async () => {
    const { db, cleanup } = await open();
    try {
      const result = await evaluateInstantMatching(db, createWordNetEmbedder(), 0.3);
      expect(result.subjects).toBeGreaterThanOrEqual(50);
      expect(result.paraphrases).toBeGreaterThanOrEqual(100);
      expect(result.recallAt1).toBeGreaterThanOrEqual(RECALL_FLOOR);
      expect(result.falseMatchRate).toBeLessThanOrEqual(FALSE_MATCH_CEILING);
    } finally {
      await cleanup();
    }
  }, 120_000);

  it('without an embedder (trigram only) the same set is mostly missed: the floor above is meaning, not spelling', async () => {
    const { db, cleanup } = await open();
    try {
      const result = await evaluateInstantMatching(db, null, 0.3);
      expect(result.recallAt1).toBeLessThan(0.2);
    } finally {
      await cleanup();
    }
  }, 120_000);
});
