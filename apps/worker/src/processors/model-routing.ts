import {
  JobDeferredError,
  PermanentJobError,
  TransientModelError,
  type BackendBreaker,
  type BackendBulkhead,
  type BulkheadPermit,
  type ImageModel,
  type ModelImage,
  type ModelRequest,
  type UpscaleRequest,
} from '@promptpix/core';
import { PermanentModelError, type ModelRegistry } from '@promptpix/models';

/** The model a job runs on (the one it names, or its fallback while that one's backend is down), with a permit of its backend's bulkhead. */
export interface RoutedCall {
  /** The id of the model that serves the job. */
  id: string;
  model: ImageModel;
  /** Set when the model the job named was down and its fallback serves it instead. */
  fallbackFrom?: string;
  /**
   * Calls the model. A call still in flight past the backend's slow-call threshold counts as bad
   * for the breaker at once; if the breaker is open then (or opens while the call waits), the call
   * is given up with a TransientModelError. Then tells the breaker how the call ended (unless it
   * already counted as slow, or `signal` aborted it: a cancel or a hand-back says nothing of the
   * backend) and gives the permit back.
   */
  generate(request: ModelRequest, signal: AbortSignal): Promise<ModelImage>;
  /** The backend's own upscaler, when the model has one, under the same breaker, slow-call watch and permit as `generate`. */
  upscale?(request: UpscaleRequest, signal: AbortSignal): Promise<ModelImage>;
  /** Gives the permit back without a call (the job stopped before it); idempotent. */
  release(): void;
}

export interface ModelRouter {
  /**
   * Throws PermanentJobError (the job fails at once, refunded) when the model is down and has no
   * usable fallback, and JobDeferredError (the job waits in the queue) when the backend that would
   * serve it has as many calls in flight as it may.
   */
  pick(id: string | undefined, job?: { jobId: string }): Promise<RoutedCall>;
}

/** Message of a job that failed fast; the gateway answers it as the spec's 502 (render, /v1). */
export const modelDownMessage = (id: string) => `Image generation failed: the model "${id}" is unavailable (its backend keeps failing); try again later`;

/** A job whose backend is full tries again after this, plus up to as much again at random (so deferred jobs do not return in step). */
export const DEFER_MS = 1000;
/** A slow call asks the breaker this often whether its backend was declared down meanwhile. */
export const SLOW_WATCH_MS = 2000;

export interface ModelRouterDeps {
  registry: ModelRegistry;
  defaultModel: ImageModel;
  breaker: BackendBreaker | null;
  bulkhead: BackendBulkhead;
  onBreakerError: (error: unknown) => void;
  /** A call crossed its backend's slow-call threshold. */
  onSlowCall?: (model: string, slowCallMs: number, jobId: string | undefined) => void;
  /** A job waits in the queue for a permit of its backend's bulkhead. */
  onDeferred?: (model: string, jobId: string | undefined) => void;
  random?: () => number;
}

/**
 * Routing by model id under the per-backend circuit breakers and bulkheads
 * (docs/operating/models.md): a job for a model whose breaker is open goes to its `fallback` when
 * that one is admitted, else fails fast; a job whose backend is at its limit of calls in flight
 * is deferred. `defaultModel` is the process's default model (wrapped by instrumentation and tests).
 */
export function createModelRouter(d: ModelRouterDeps): ModelRouter {
  const modelOf = (id: string) => (id === d.registry.defaultId ? d.defaultModel : d.registry.get(id)?.model);
  const random = d.random ?? Math.random;

  const admission = async (id: string): Promise<{ allowed: boolean; trial: boolean }> => {
    if (!d.breaker) return { allowed: true, trial: false };
    try {
      return await d.breaker.admit(id);
    } catch (error) {
      // Store unreachable: let the call through (the breaker is an optimisation, not a gate).
      d.onBreakerError(error);
      return { allowed: true, trial: false };
    }
  };

  const record = async (id: string, outcome: 'ok' | 'transient' | 'slow'): Promise<boolean> => {
    if (!d.breaker) return false;
    try {
      return (await d.breaker.record(id, outcome)) === 'down';
    } catch (error) {
      // The breaker's store failing must not fail a job that the model made.
      d.onBreakerError(error);
      return false;
    }
  };

  const isDown = async (id: string): Promise<boolean> => {
    if (!d.breaker) return false;
    try {
      return (await d.breaker.health([id]))[id] === 'down';
    } catch (error) {
      d.onBreakerError(error);
      return false;
    }
  };

  function routed(id: string, model: ImageModel, permit: BulkheadPermit, jobId: string | undefined, fallbackFrom?: string): RoutedCall {
    const slowCallMs = d.registry.get(id)?.limits.slowCallMs ?? null;
    return {
      id,
      model,
      ...(fallbackFrom && { fallbackFrom }),
      release: () => permit.release(),
      generate: (request, signal) => guarded((s) => model.generate(request, s), signal),
      ...(model.upscale && { upscale: (request: UpscaleRequest, signal: AbortSignal) => guarded((s) => model.upscale!(request, s), signal) }),
    };

    /** One call to the backend under its breaker's slow-call watch; the permit goes back when it ends. */
    async function guarded(call: (signal: AbortSignal) => Promise<ModelImage>, signal: AbortSignal): Promise<ModelImage> {
      const giveUp = new AbortController();
      let slow = false;
      let done = false;
      let watch: NodeJS.Timeout | undefined;
      const abandon = () =>
        giveUp.abort(new TransientModelError(`the model "${id}" was given up after ${slowCallMs} ms: its backend was declared down while the call waited`));
      const onSlow = async () => {
        slow = true;
        d.onSlowCall?.(id, slowCallMs!, jobId);
        const down = await record(id, 'slow');
        if (done) return;
        if (down) return abandon();
        watch = setInterval(() => {
          void isDown(id).then((now) => {
            if (now && !done) abandon();
          });
        }, SLOW_WATCH_MS);
      };
      const timer = slowCallMs === null ? undefined : setTimeout(() => void onSlow(), slowCallMs);
      try {
        const image = await call(AbortSignal.any([signal, giveUp.signal]));
        if (!slow) await record(id, 'ok');
        return image;
      } catch (error) {
        if (giveUp.signal.aborted && !signal.aborted) throw giveUp.signal.reason;
        // A refusal is an answer; a cancel or hand-back says nothing of the backend.
        if (!slow && !signal.aborted) await record(id, error instanceof PermanentModelError ? 'ok' : 'transient');
        throw error;
      } finally {
        done = true;
        clearTimeout(timer);
        clearInterval(watch);
        permit.release();
      }
    }
  }

  /** The model's call if its breaker admits it and its bulkhead has room; `down` or `full` if not. */
  async function tryModel(id: string, model: ImageModel, jobId: string | undefined, fallbackFrom?: string): Promise<RoutedCall | 'down' | 'full'> {
    const admitted = await admission(id);
    if (!admitted.allowed) return 'down';
    // The trial goes through whatever is in flight: it is one call, and what the breaker waits for.
    const permit = await d.bulkhead.acquire(id, { force: admitted.trial });
    if (!permit) return 'full';
    return routed(id, model, permit, jobId, fallbackFrom);
  }

  const defer = (id: string, jobId: string | undefined): never => {
    d.onDeferred?.(id, jobId);
    throw new JobDeferredError(Math.round(DEFER_MS * (1 + random())), `The model "${id}" has as many calls in flight as it may: the job waits in the queue`);
  };

  return {
    async pick(requested, job) {
      const id = requested ?? d.registry.defaultId;
      const model = modelOf(id);
      if (!model) throw new PermanentJobError(`Image generation failed: the model "${id}" is no longer served`);
      const first = await tryModel(id, model, job?.jobId);
      if (first === 'full') return defer(id, job?.jobId);
      if (first !== 'down') return first;
      const fallback = d.registry.get(id)?.fallback;
      const fallbackModel = fallback === undefined ? undefined : modelOf(fallback);
      if (fallback !== undefined && fallbackModel) {
        const second = await tryModel(fallback, fallbackModel, job?.jobId, id);
        if (second === 'full') return defer(fallback, job?.jobId);
        if (second !== 'down') return second;
      }
      throw new PermanentJobError(modelDownMessage(id));
    },
  };
}
