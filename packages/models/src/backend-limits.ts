/**
 * Each backend kind's default time limits and calls in flight (docs/operating/models.md,
 * "Isolation between backends"), and how a model's own settings override them. The reasoning
 * behind each number is in that page's table.
 */
import type { BackendLimits } from '@promptpix/core';
import type { ModelProvider } from './model-providers';

/** What an operator may set per model (the models file) or for every model (MODEL_* variables). */
export interface BackendLimitSettings {
  timeoutMs?: number;
  slowCallMs?: number;
  /** Calls in flight from every worker together; 0: no overall limit. */
  maxInFlight?: number;
  maxInFlightPerWorker?: number;
}

/** The longest one call may take, by backend kind: null for the built-in renderer (in process, no network). */
export const DEFAULT_TIMEOUT_MS: Record<ModelProvider, number | null> = {
  procedural: null,
  openai: 120_000,
  replicate: 120_000,
  a1111: 90_000,
  comfyui: 120_000,
};

/** Calls in flight from every worker together, by backend kind: null for none. */
export const DEFAULT_MAX_IN_FLIGHT: Record<ModelProvider, number | null> = {
  procedural: null,
  openai: 16,
  replicate: 16,
  a1111: 2,
  comfyui: 2,
};

/**
 * One worker process's default limit per backend: with several models, a quarter of its slots
 * (at least one) stay free for the others; with one model, every slot (there is nothing to keep
 * them for).
 */
export function defaultMaxInFlightPerWorker(concurrency: number, models: number): number {
  return models > 1 ? Math.max(1, concurrency - Math.max(1, Math.floor(concurrency / 4))) : concurrency;
}

/**
 * A model's limits: its settings, else its kind's defaults. The slow-call threshold defaults to
 * half the timeout. The built-in renderer has neither (it runs in process). A worker never takes
 * more of one backend than its own concurrency.
 */
export function resolveBackendLimits(provider: ModelProvider, settings: BackendLimitSettings, worker: { concurrency: number; models: number }): BackendLimits {
  const timeoutMs = provider === 'procedural' ? null : (settings.timeoutMs ?? DEFAULT_TIMEOUT_MS[provider]);
  const slowCallMs = settings.slowCallMs ?? (timeoutMs === null ? null : Math.round(timeoutMs / 2));
  const maxInFlight = settings.maxInFlight === 0 ? null : (settings.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT[provider]);
  const perWorker = settings.maxInFlightPerWorker ?? defaultMaxInFlightPerWorker(worker.concurrency, worker.models);
  return { timeoutMs, slowCallMs, maxInFlight, maxInFlightPerWorker: Math.max(1, Math.min(worker.concurrency, perWorker)) };
}
