import type { MeaningCalibration, PromptEmbedder } from '@promptpix/core';
import { createColdWordBudget, type ColdWordBudget } from './cold-word-budget';
import { CONCEPTS_VERSION, createConceptEncoder } from './concepts';

/**
 * Set on the project's evaluation set through the real library query (bench `meaning` phase):
 * with 0.3 (the default INSTANT_MIN_SCORE) at cosine 0.07, 2 of 30 unrelated queries get an
 * image; a higher cut loses paraphrases faster than it drops false matches.
 */
export const WORDNET_CALIBRATION: MeaningCalibration = { floor: 0.01, ceiling: 0.21 };

/** The embedded default: WordNet concepts, in process, nothing to configure or download. */
export function createWordNetEmbedder(options: { dictDir?: string; queryColdWords?: ColdWordBudget } = {}): PromptEmbedder & { close(): void } {
  const encoder = createConceptEncoder({ dictDir: options.dictDir });
  const queryColdWords = options.queryColdWords ?? createColdWordBudget();
  return {
    space: `wordnet-3.1/concepts-v${CONCEPTS_VERSION}`,
    calibration: WORDNET_CALIBRATION,
    async embed(texts, use) {
      return texts.map((text) => encoder.encode(text, use?.purpose === 'query' ? queryColdWords : undefined));
    },
    close: () => encoder.close(),
  };
}
