import type { BackendBreaker, BackendBulkhead, ImageModel } from '@promptpix/core';
import type { ModelRegistry } from '@promptpix/models';
import type { Logger } from '@promptpix/runtime';
import { createModelRouter, type ModelRouter, type ModelRouterDeps } from '../model-routing';

export interface RouteInput {
  /** The default model. */
  model: ImageModel;
  /** Every model a job may name, by id; jobs are routed under the per-backend circuit breakers (../model-routing.ts). */
  models: ModelRegistry;
  breaker: BackendBreaker | null;
  /** Each backend's limits on calls in flight (../model-routing.ts defers a job whose backend is full). */
  bulkhead: BackendBulkhead;
  /** A call crossed its backend's slow-call threshold; a job was deferred for its backend's bulkhead (metrics). */
  onSlowCall?: ModelRouterDeps['onSlowCall'];
  onDeferred?: ModelRouterDeps['onDeferred'];
  logger: Logger;
}

/**
 * Picks the model route of a job: the backend's breaker and bulkhead decide before the job is
 * taken (it fails fast when the model is down, or waits in the queue when its backend is full).
 */
export function createRouteStep(d: RouteInput): ModelRouter['pick'] {
  const router = createModelRouter({
    registry: d.models,
    defaultModel: d.model,
    breaker: d.breaker,
    bulkhead: d.bulkhead,
    onBreakerError: (error) => d.logger.warn('circuit breaker store failed', { error }),
    onSlowCall: (model, ms, jobId) => {
      d.logger.warn('model call slower than its slow-call threshold: counted against its backend', { jobId, model, slowCallMs: ms });
      d.onSlowCall?.(model, ms, jobId);
    },
    onDeferred: d.onDeferred,
  });
  return (id, job) => router.pick(id, job);
}
