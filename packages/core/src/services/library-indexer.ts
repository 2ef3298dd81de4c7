import type { MeaningVector, PromptEmbedder } from '../ports/meaning';

export interface LibraryIndexerDeps {
  library: {
    unindexed(space: string, limit: number): Promise<Array<{ id: string; normalizedPrompt: string }>>;
    saveMeanings(space: string, rows: Array<{ id: string; vector: MeaningVector }>): Promise<void>;
  };
  embedder: PromptEmbedder;
  batchSize?: number;
}

/**
 * Gives library images their meaning vectors off the request path: new images and rows that
 * existed before (or were embedded by another adapter) alike. A pass embeds batches until none is left.
 */
export const createLibraryIndexer = (d: LibraryIndexerDeps) => ({
  /** Embeds every image still missing a vector of the embedder's space; how many it stored. */
  async indexPending(): Promise<number> {
    const batchSize = d.batchSize ?? 100;
    let stored = 0;
    for (;;) {
      const rows = await d.library.unindexed(d.embedder.space, batchSize);
      if (rows.length === 0) return stored;
      const vectors = await d.embedder.embed(rows.map((row) => row.normalizedPrompt));
      await d.library.saveMeanings(
        d.embedder.space,
        rows.map((row, i) => ({ id: row.id, vector: vectors[i] })),
      );
      stored += rows.length;
      if (rows.length < batchSize) return stored;
    }
  },
});

export type LibraryIndexer = ReturnType<typeof createLibraryIndexer>;
