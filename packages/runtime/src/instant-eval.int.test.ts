import { createWordNetEmbedder } from '@promptpix/models';
import { bothDatabases } from '@promptpix/db/src/testing';
import { evaluateInstantMatching } from './instant-eval';

/**
 * The embedded default's floors on the project's evaluation set (the bench's `meaning` phase prints
 * the same figures). Raise the floors when the matcher improves; never lower them to pass.
 *
 * On the tuning subjects alone (the set as the matcher was tuned, 55 subjects) the issue's
 * false-match target holds. With the held-out subjects in the library too (85 subjects) the figures
 * below are pinned at what was measured (2026-11-25): recall on paraphrases the matcher was never
 * fitted to, and a false-match rate that grows with the library (the target of at most 10% is not
 * met there: an unrelated query sharing one word with a subject, "a microwave oven" and "a pizza
 * fresh out of the oven", scores like a paraphrase).
 */
const TUNING_LIBRARY = { recall: 0.62, falseMatchCeiling: 0.1 };
const FULL_LIBRARY = { recall: { tuning: 0.59, 'held-out': 0.64 }, falseMatchCeiling: 0.3 };

describe.each(bothDatabases)('instant matching by meaning on the evaluation set (%s)', (_name, open) => {
  it('the embedded WordNet default finds paraphrases of the tuning subjects and leaves unrelated queries unanswered', async () => {
    const { db, cleanup } = await open();
    try {
      const result = await evaluateInstantMatching(db, createWordNetEmbedder(), 0.3, ['tuning']);
      expect(result.subjects).toBeGreaterThanOrEqual(50);
      expect(result.paraphrases).toBeGreaterThanOrEqual(100);
      expect(result.recallAt1).toBeGreaterThanOrEqual(TUNING_LIBRARY.recall);
      expect(result.falseMatchRate).toBeLessThanOrEqual(TUNING_LIBRARY.falseMatchCeiling);
    } finally {
      await cleanup();
    }
  }, 180_000);

  it('with the held-out subjects in the library, both splits stay above their floors', async () => {
    const { db, cleanup } = await open();
    try {
      const result = await evaluateInstantMatching(db, createWordNetEmbedder(), 0.3);
      expect(result.bySplit['held-out']?.paraphrases).toBeGreaterThanOrEqual(result.paraphrases / 3);
      expect(result.bySplit.tuning?.recallAt1).toBeGreaterThanOrEqual(FULL_LIBRARY.recall.tuning);
      expect(result.bySplit['held-out']?.recallAt1).toBeGreaterThanOrEqual(FULL_LIBRARY.recall['held-out']);
      expect(result.falseMatchRate).toBeLessThanOrEqual(FULL_LIBRARY.falseMatchCeiling);
    } finally {
      await cleanup();
    }
  }, 180_000);

  it('without an embedder (trigram only) the same set is mostly missed: the floors above are meaning, not spelling', async () => {
    const { db, cleanup } = await open();
    try {
      const result = await evaluateInstantMatching(db, null, 0.3);
      expect(result.recallAt1).toBeLessThan(0.2);
    } finally {
      await cleanup();
    }
  }, 180_000);
});
