import type { ImageModel } from '@promptpix/core/src/ports/model';
import { createProceduralModel } from './procedural';

export const modelProviders = ['procedural'] as const;
export type ModelProvider = (typeof modelProviders)[number];

export interface ModelConfig {
  /** One of `modelProviders`; typed loosely because it usually comes from the environment. */
  provider: ModelProvider | (string & {});
  /** Simulated latency for the procedural model, in milliseconds. */
  latencyMs?: number;
}

/** The image model a process runs with, chosen by configuration. */
export const createModel = (config: ModelConfig): ImageModel => {
  switch (config.provider) {
    case 'procedural':
      return createProceduralModel({ latencyMs: config.latencyMs });
    default:
      throw new Error(`Unknown model provider "${config.provider}"; known providers: ${modelProviders.join(', ')}`);
  }
};
