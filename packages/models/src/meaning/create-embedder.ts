import type { PromptEmbedder } from '@promptpix/core';
import { createOpenAIEmbedder, type OpenAIEmbedderConfig } from './openai-embedder';
import { createWordNetEmbedder } from './wordnet-embedder';

export type EmbedderConfig = { kind: 'wordnet' } | { kind: 'off' } | ({ kind: 'openai' } & OpenAIEmbedderConfig);

/** The configured text-embedding adapter for instant mode (INSTANT_EMBEDDINGS); null when off. */
export function createPromptEmbedder(config: EmbedderConfig): PromptEmbedder | null {
  switch (config.kind) {
    case 'wordnet':
      return createWordNetEmbedder();
    case 'openai':
      return createOpenAIEmbedder(config);
    case 'off':
      return null;
  }
}
