import { breakerPolicyFor, type BackendLimits } from './bulkhead';
import { DEFAULT_BREAKER_POLICY } from './circuit-breaker';

describe('breakerPolicyFor', () => {
  const limits = (l: Partial<BackendLimits>): BackendLimits => ({ timeoutMs: 90_000, slowCallMs: 45_000, maxInFlightPerWorker: 3, maxInFlight: null, ...l });
  it.each<[string, Partial<BackendLimits>, { failures: number; trialMs: number }]>([
    ["no overall limit: the operator's failures", {}, { failures: 3, trialMs: 120_000 }],
    ['an overall limit of 2: two bad calls in a row open (both calls it may hold hung)', { maxInFlight: 2 }, { failures: 2, trialMs: 120_000 }],
    ['an overall limit above the failures changes nothing', { maxInFlight: 16 }, { failures: 3, trialMs: 120_000 }],
    ['a trial may last one call plus 30 s', { timeoutMs: 300_000 }, { failures: 3, trialMs: 330_000 }],
    ['no timeout (the built-in renderer): a minute and a half', { timeoutMs: null }, { failures: 3, trialMs: 90_000 }],
  ])('%s', (_name, l, expected) => {
    expect(breakerPolicyFor(DEFAULT_BREAKER_POLICY, limits(l))).toEqual({ ...DEFAULT_BREAKER_POLICY, ...expected });
  });
});
