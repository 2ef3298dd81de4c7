import type { BreakerStore } from '../ports/breaker-store';
import { admit, afterCall, CLOSED, healthOf, type BackendHealth, type BreakerPolicy, type BreakerState, type CallOutcome } from './circuit-breaker';

const encode = (state: BreakerState): string | null => (state.state === 'closed' && state.calls === '' ? null : JSON.stringify(state));
const decode = (raw: string | null): BreakerState => {
  if (raw === null) return CLOSED;
  try {
    const state = JSON.parse(raw) as BreakerState;
    // A closed state written by an older version (a failure count, no window) starts afresh.
    if (state.state === 'closed' && typeof state.calls !== 'string') return CLOSED;
    return state;
  } catch {
    return CLOSED;
  }
};

export interface BackendBreaker {
  /** Whether a call to this backend may go now (and whether it is the half-open trial). */
  admit(backend: string): Promise<{ allowed: boolean; trial: boolean }>;
  /** How a call that was admitted ended, or that it crossed the slow-call threshold; the backend's health after it. */
  record(backend: string, outcome: CallOutcome): Promise<BackendHealth>;
  /** Each backend's health, for /api/ready and /metrics. */
  health(backends: readonly string[]): Promise<Record<string, BackendHealth>>;
}

/**
 * The breaker rules (./circuit-breaker.ts) over a shared store: every step reads the state,
 * decides, and writes only when the state changes, with a compare-and-set so that two workers
 * deciding at once cannot both take the one trial. A healthy backend costs one read per call once
 * its window is full of good outcomes. `policy` may differ per backend (its failures to open
 * cannot exceed the calls it may have in flight at once).
 */
export function createBackendBreaker(d: {
  store: BreakerStore;
  policy: BreakerPolicy | ((backend: string) => BreakerPolicy);
  now: () => number;
}): BackendBreaker {
  const policyOf = typeof d.policy === 'function' ? d.policy : () => d.policy as BreakerPolicy;
  async function step<T>(backend: string, decide: (current: BreakerState) => { next: BreakerState; result: (next: BreakerState) => T }): Promise<T> {
    let raw = await d.store.read(backend);
    for (let attempt = 0; ; attempt++) {
      const { next, result } = decide(decode(raw));
      const nextRaw = encode(next);
      if (nextRaw === raw) return result(next);
      const swapped = await d.store.swap(backend, raw, nextRaw);
      if (swapped.done || attempt >= 10) return result(next);
      raw = swapped.current;
    }
  }
  return {
    admit: (backend) =>
      step(backend, (current) => {
        const a = admit(current, d.now(), policyOf(backend));
        return { next: a.next, result: () => ({ allowed: a.allowed, trial: a.trial }) };
      }),
    record: (backend, outcome) =>
      step(backend, (current) => {
        const now = d.now();
        return { next: afterCall(current, outcome, now, policyOf(backend)), result: (next) => healthOf(next, now) };
      }),
    async health(backends) {
      const raws = await d.store.readMany(backends);
      const now = d.now();
      return Object.fromEntries(backends.map((b, i) => [b, healthOf(decode(raws[i]), now)]));
    },
  };
}
