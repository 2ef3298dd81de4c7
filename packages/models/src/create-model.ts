import type { ImageModel } from '@promptpix/core';
import { createProceduralModel } from './procedural';
import {
  createA1111Model,
  createOpenAIModel,
  createReplicateModel,
  type A1111ModelConfig,
  type OpenAIModelConfig,
  type ReplicateModelConfig,
} from './providers';
import { createComfyUIModel, type ComfyUIModelConfig } from './providers/comfyui';

import { modelProviders } from './model-providers';

export { modelProviders, type ModelProvider } from './model-providers';

/** Which model a process runs with, and that model's settings (`MODEL_PROVIDER` picks the branch). */
export type ModelConfig =
  | { provider: 'procedural' /** Simulated latency, in milliseconds. */; latencyMs?: number }
  | ({ provider: 'openai' } & OpenAIModelConfig)
  | ({ provider: 'replicate' } & ReplicateModelConfig)
  | ({ provider: 'a1111' } & A1111ModelConfig)
  | ({ provider: 'comfyui' } & ComfyUIModelConfig);

/** The image model a process runs with, chosen by configuration. */
export function createModel(config: ModelConfig): ImageModel;
/** A provider name read from the environment that may be unknown: throws for one. */
export function createModel(config: { provider: string & {} }): ImageModel;
export function createModel(config: ModelConfig | { provider: string & {} }): ImageModel {
  const c = config as ModelConfig;
  switch (c.provider) {
    case 'procedural':
      return createProceduralModel({ latencyMs: c.latencyMs });
    case 'openai':
      return createOpenAIModel(c);
    case 'replicate':
      return createReplicateModel(c);
    case 'a1111':
      return createA1111Model(c);
    case 'comfyui':
      return createComfyUIModel(c);
    default:
      throw new Error(`Unknown model provider "${config.provider}"; known providers: ${modelProviders.join(', ')}`);
  }
}
