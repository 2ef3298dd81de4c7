import type { PromptEmbedder } from '@promptpix/core';
import { createWordNetEmbedder } from './wordnet-embedder';

export type EmbedderConfig = { kind: 'wordnet' } | { kind: 'off' };

/** The configured text-embedding adapter for instant mode (INSTANT_EMBEDDINGS); null when off. */
export function createPromptEmbedder(config: EmbedderConfig): PromptEmbedder | null {
  switch (config.kind) {
    case 'wordnet':
      return createWordNetEmbedder();
    case 'off':
      return null;
  }
}
