import type { ImageModel } from '@promptpix/core';
import type { BackendLimits } from '@promptpix/core';
import { resolveBackendLimits, type BackendLimitSettings } from './backend-limits';
import { createModel, type ModelConfig } from './create-model';
import { nearestSize } from './providers/openai';

/** One model callers can name: its backend's settings, its size table and its fallback. */
export interface ModelEntry {
  /** What callers pass as `model`. Absent in the single-model configuration: the model's own name (`procedural`, `openai:gpt-image-1`, ...). */
  id?: string;
  config: ModelConfig;
  /** Sizes (`WxH`) the backend is asked for: the nearest in shape to the request; the worker fits the result to the size asked for. Absent: the request's own size. */
  sizes?: readonly string[];
  /** Another entry's id that serves this model's jobs while its backend is down. */
  fallback?: string;
  /** Its time limits and calls in flight, where they differ from its kind's defaults (./backend-limits.ts). */
  limits?: BackendLimitSettings;
}

export interface RoutedModel {
  id: string;
  model: ImageModel;
  fallback?: string;
  /** Its timeout, slow-call threshold and bulkhead limits, resolved. */
  limits: BackendLimits;
}

/** The models a deployment serves, by id (docs/operating/models.md). */
export interface ModelRegistry {
  readonly defaultId: string;
  /** Every id, the default first. */
  readonly ids: readonly string[];
  /** The default model (style previews, library seeding, a request that names no model). */
  readonly default: ImageModel;
  /** The entry an id names; undefined (no id) is the default. */
  get(id: string | undefined): RoutedModel | undefined;
}

/**
 * Asks the backend for the nearest size of the table; the worker cover-crops the result to the size
 * asked for. What the model can do (edits, transparency, its upscaler) passes through unchanged.
 */
function withSizeTable(model: ImageModel, sizes: readonly string[]): ImageModel {
  const sized = (width: number, height: number) => {
    const [w, h] = nearestSize(width, height, sizes).split('x').map(Number);
    return { width: w, height: h };
  };
  return {
    name: model.name,
    generate: (request, signal) => model.generate({ ...request, ...sized(request.width, request.height) }, signal),
    ...(model.prepareReference && { prepareReference: model.prepareReference.bind(model) }),
    ...(model.upscale && { upscale: model.upscale.bind(model) }),
    ...(model.edits && { edits: model.edits }),
    ...(model.transparentBackground && { transparentBackground: model.transparentBackground }),
  };
}

/**
 * The first entry is the default unless `defaultId` names another. `worker.concurrency` (the
 * worker's slots; default 4) bounds each model's calls in flight per worker.
 */
export function createModelRegistry(
  entries: readonly ModelEntry[],
  defaultId?: string,
  create: (config: ModelConfig) => ImageModel = createModel,
  worker: { concurrency: number } = { concurrency: 4 },
): ModelRegistry {
  if (entries.length === 0) throw new Error('At least one model is required');
  const byId = new Map<string, RoutedModel>();
  for (const entry of entries) {
    // The OpenAI adapter picks from its own size list; every other backend is wrapped.
    const config = entry.sizes && entry.config.provider === 'openai' ? { ...entry.config, sizes: entry.sizes } : entry.config;
    const created = create(config);
    const model = entry.sizes && config.provider !== 'openai' ? withSizeTable(created, entry.sizes) : created;
    const id = entry.id ?? created.name;
    if (byId.has(id)) throw new Error(`Two models have the id "${id}"`);
    const limits = resolveBackendLimits(
      config.provider,
      { timeoutMs: 'timeoutMs' in config ? config.timeoutMs : undefined, ...entry.limits },
      { concurrency: worker.concurrency, models: entries.length },
    );
    byId.set(id, { id, model, limits, ...(entry.fallback && { fallback: entry.fallback }) });
  }
  const chosen = defaultId ?? byId.keys().next().value!;
  const fallbackOf = byId.get(chosen);
  if (!fallbackOf) throw new Error(`The default model "${chosen}" is not one of the models`);
  for (const routed of byId.values()) {
    if (routed.fallback && !byId.has(routed.fallback))
      throw new Error(`The model "${routed.id}" falls back to "${routed.fallback}", which is not one of the models`);
  }
  const ids = [chosen, ...[...byId.keys()].filter((id) => id !== chosen)];
  return {
    defaultId: chosen,
    ids,
    default: fallbackOf.model,
    get: (id) => byId.get(id ?? chosen),
  };
}
