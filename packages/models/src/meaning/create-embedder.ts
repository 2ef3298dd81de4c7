import type { PromptEmbedder } from '@promptpix/core';
import { createLocalEmbedder, type LocalEmbedderConfig } from './local-embedder';
import { createOpenAIEmbedder, type OpenAIEmbedderConfig } from './openai-embedder';
import { createEmbeddedEmbedder } from './embedded-embedder';

export type EmbedderConfig = { kind: 'wordnet' } | { kind: 'off' } | ({ kind: 'openai' } & OpenAIEmbedderConfig) | ({ kind: 'local' } & LocalEmbedderConfig);

/**
 * The configured text-embedding adapter for instant mode (INSTANT_EMBEDDINGS); null when off.
 * `wordnet` is the embedded default: WordNet concepts + GloVe word vectors, or WordNet alone (with
 * a warning) when the word-vector file was not built.
 */
export function createPromptEmbedder(config: EmbedderConfig, options: { warn?: (message: string) => void } = {}): PromptEmbedder | null {
  switch (config.kind) {
    case 'wordnet':
      return createEmbeddedEmbedder({ warn: options.warn });
    case 'openai':
      return createOpenAIEmbedder(config);
    case 'local':
      return createLocalEmbedder(config);
    case 'off':
      return null;
  }
}
