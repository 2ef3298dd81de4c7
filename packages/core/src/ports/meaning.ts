/**
 * What a prompt means, as a unit vector that the library can store and search. Sparse: `terms`
 * (ascending ids) with their `weights`; a dense embedding is the same shape with one term per
 * dimension. `keys` are the few ids the library's inverted index is searched by to find the
 * candidates whose cosine is then computed (a dense adapter's keys are locality-sensitive hashes).
 */
export interface MeaningVector {
  terms: number[];
  weights: number[];
  keys: number[];
}

/** Maps an adapter's raw cosine onto the shared 0..1 match score (see meaningScore). */
export interface MeaningCalibration {
  /** Cosine of unrelated prompts at or below this: score 0. */
  floor: number;
  /** Cosine of plain paraphrases at or above this: score 1. */
  ceiling: number;
}

/** A text-embedding adapter: the embedded WordNet concepts, an upstream /v1/embeddings, a local model. */
export interface PromptEmbedder {
  /** Names the vector space (adapter, model, version): stored vectors of another space are recomputed. */
  readonly space: string;
  readonly calibration: MeaningCalibration;
  /**
   * `purpose: 'query'` marks a caller's instant query (one prompt on the request path): an adapter
   * whose cost depends on what it has seen may bound it; the indexer's library entries are never limited.
   */
  embed(texts: string[], use?: { purpose: 'query' | 'index' }): Promise<MeaningVector[]>;
  /** Resolves when the adapter can embed (a local model loaded); start-up awaits it and stops on its error. */
  ready?(): Promise<void>;
}
