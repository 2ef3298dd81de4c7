import type { MeaningCalibration, PromptEmbedder } from '@promptpix/core';
import { CONCEPTS_VERSION, createConceptEncoder } from './concepts';

/**
 * Measured on the project's evaluation set (bench `meaning` phase): unrelated queries' best
 * cosine stays under about 0.1, plain paraphrases' cosine with their subject is 0.12 to 0.4.
 * 0.1 maps to 0.3, the default INSTANT_MIN_SCORE.
 */
export const WORDNET_CALIBRATION: MeaningCalibration = { floor: 0.04, ceiling: 0.24 };

/** The embedded default: WordNet concepts, in process, nothing to configure or download. */
export function createWordNetEmbedder(options: { dictDir?: string } = {}): PromptEmbedder & { close(): void } {
  const encoder = createConceptEncoder(options);
  return {
    space: `wordnet-3.1/concepts-v${CONCEPTS_VERSION}`,
    calibration: WORDNET_CALIBRATION,
    async embed(texts) {
      return texts.map((text) => encoder.encode(text));
    },
    close: () => encoder.close(),
  };
}
