import { defaultMaxInFlightPerWorker, resolveBackendLimits, type BackendLimitSettings } from './backend-limits';
import type { ModelProvider } from './create-model';

describe('defaultMaxInFlightPerWorker', () => {
  it.each<[number, number, number]>([
    // concurrency, models, limit per backend
    [1, 2, 1],
    [2, 2, 1],
    [3, 2, 2],
    [4, 2, 3],
    [8, 3, 6],
    [16, 2, 12],
    [4, 1, 4],
    [16, 1, 16],
  ])('concurrency %d with %d models: %d per backend', (concurrency, models, expected) => {
    expect(defaultMaxInFlightPerWorker(concurrency, models)).toBe(expected);
  });
});

describe('resolveBackendLimits', () => {
  const worker = { concurrency: 4, models: 2 };
  it.each<[string, ModelProvider, BackendLimitSettings, ReturnType<typeof resolveBackendLimits>]>([
    ['a1111 by default', 'a1111', {}, { timeoutMs: 90_000, slowCallMs: 45_000, maxInFlight: 2, maxInFlightPerWorker: 3 }],
    ['comfyui by default', 'comfyui', {}, { timeoutMs: 120_000, slowCallMs: 60_000, maxInFlight: 2, maxInFlightPerWorker: 3 }],
    ['openai by default', 'openai', {}, { timeoutMs: 120_000, slowCallMs: 60_000, maxInFlight: 16, maxInFlightPerWorker: 3 }],
    ['replicate by default', 'replicate', {}, { timeoutMs: 120_000, slowCallMs: 60_000, maxInFlight: 16, maxInFlightPerWorker: 3 }],
    [
      'the built-in renderer: no timeout, never slow, no overall limit',
      'procedural',
      {},
      { timeoutMs: null, slowCallMs: null, maxInFlight: null, maxInFlightPerWorker: 3 },
    ],
    [
      'a timeout set: slow at half of it',
      'a1111',
      { timeoutMs: 300_000 },
      { timeoutMs: 300_000, slowCallMs: 150_000, maxInFlight: 2, maxInFlightPerWorker: 3 },
    ],
    [
      'a slow-call threshold set',
      'openai',
      { timeoutMs: 200_000, slowCallMs: 90_000 },
      { timeoutMs: 200_000, slowCallMs: 90_000, maxInFlight: 16, maxInFlightPerWorker: 3 },
    ],
    ['maxInFlight 0: no overall limit', 'a1111', { maxInFlight: 0 }, { timeoutMs: 90_000, slowCallMs: 45_000, maxInFlight: null, maxInFlightPerWorker: 3 }],
    [
      'a per-worker limit above the concurrency is the concurrency',
      'a1111',
      { maxInFlight: 8, maxInFlightPerWorker: 10 },
      { timeoutMs: 90_000, slowCallMs: 45_000, maxInFlight: 8, maxInFlightPerWorker: 4 },
    ],
    [
      'the built-in renderer ignores a timeout (it has none)',
      'procedural',
      { timeoutMs: 5000, slowCallMs: 2000 },
      { timeoutMs: null, slowCallMs: 2000, maxInFlight: null, maxInFlightPerWorker: 3 },
    ],
  ])('%s', (_name, provider, settings, expected) => {
    expect(resolveBackendLimits(provider, settings, worker)).toEqual(expected);
  });
});
