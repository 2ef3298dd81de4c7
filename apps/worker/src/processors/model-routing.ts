import { PermanentJobError, type BackendBreaker, type ImageModel } from '@promptpix/core';
import { PermanentModelError, type ModelRegistry } from '@promptpix/models';

/** The model a job runs on: the one it names, or its fallback while that one's backend is down. */
export interface RoutedCall {
  /** The id of the model that serves the job. */
  id: string;
  model: ImageModel;
  /** Set when the model the job named was down and its fallback serves it instead. */
  fallbackFrom?: string;
  /** Tells the breaker how the call ended (a refusal or cancellation is no backend fault). */
  settle(error: unknown, aborted: boolean): Promise<void>;
}

export interface ModelRouter {
  /** Throws PermanentJobError (the job fails at once, refunded) when the model is down and has no usable fallback. */
  pick(id: string | undefined): Promise<RoutedCall>;
}

/** Message of a job that failed fast; the gateway answers it as the spec's 502 (render, /v1). */
export const modelDownMessage = (id: string) => `Image generation failed: the model "${id}" is unavailable (its backend keeps failing); try again later`;

/**
 * Routing by model id with the per-backend circuit breakers (docs/operating/models.md): a job
 * for a model whose breaker is open goes to its `fallback` when that one is admitted, else fails
 * fast. `defaultModel` is the process's default model (wrapped by instrumentation and tests).
 */
export function createModelRouter(d: { registry: ModelRegistry; defaultModel: ImageModel; breaker: BackendBreaker | null; onBreakerError: (error: unknown) => void }): ModelRouter {
  const modelOf = (id: string) => (id === d.registry.defaultId ? d.defaultModel : d.registry.get(id)?.model);

  const settle = (id: string) => async (error: unknown, aborted: boolean) => {
    if (!d.breaker || aborted) return;
    const outcome = error === undefined || error instanceof PermanentModelError ? 'ok' : 'transient';
    // The breaker's store failing must not fail a job that the model made.
    await d.breaker.record(id, outcome).catch(d.onBreakerError);
  };

  const admitted = async (id: string): Promise<boolean> => {
    if (!d.breaker) return true;
    try {
      return (await d.breaker.admit(id)).allowed;
    } catch (error) {
      // Store unreachable: let the call through (the breaker is an optimisation, not a gate).
      d.onBreakerError(error);
      return true;
    }
  };

  return {
    async pick(requested) {
      const id = requested ?? d.registry.defaultId;
      const model = modelOf(id);
      if (!model) throw new PermanentJobError(`Image generation failed: the model "${id}" is no longer served`);
      if (await admitted(id)) return { id, model, settle: settle(id) };
      const fallback = d.registry.get(id)?.fallback;
      const fallbackModel = fallback === undefined ? undefined : modelOf(fallback);
      if (fallback !== undefined && fallbackModel && (await admitted(fallback))) return { id: fallback, model: fallbackModel, fallbackFrom: id, settle: settle(fallback) };
      throw new PermanentJobError(modelDownMessage(id));
    },
  };
}
