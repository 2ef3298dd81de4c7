import type { BreakerStore } from '../ports/breaker-store';
import { admit, afterCall, CLOSED, healthOf, type BackendHealth, type BreakerPolicy, type BreakerState, type CallOutcome } from './circuit-breaker';

const encode = (state: BreakerState): string | null => (state.state === 'closed' && state.failures === 0 ? null : JSON.stringify(state));
const decode = (raw: string | null): BreakerState => {
  if (raw === null) return CLOSED;
  try {
    return JSON.parse(raw) as BreakerState;
  } catch {
    return CLOSED;
  }
};

export interface BackendBreaker {
  /** Whether a call to this backend may go now (and whether it is the half-open trial). */
  admit(backend: string): Promise<{ allowed: boolean; trial: boolean }>;
  /** How a call that was admitted ended. */
  record(backend: string, outcome: CallOutcome): Promise<void>;
  /** Each backend's health, for /api/ready and /metrics. */
  health(backends: readonly string[]): Promise<Record<string, BackendHealth>>;
}

/**
 * The breaker rules (./circuit-breaker.ts) over a shared store: every step reads the state,
 * decides, and writes only when the state changes, with a compare-and-set so that two workers
 * deciding at once cannot both take the one trial. A closed breaker costs one read per call.
 */
export function createBackendBreaker(d: { store: BreakerStore; policy: BreakerPolicy; now: () => number }): BackendBreaker {
  async function step<T>(backend: string, decide: (current: BreakerState) => { next: BreakerState; result: T }): Promise<T> {
    let raw = await d.store.read(backend);
    for (let attempt = 0; ; attempt++) {
      const { next, result } = decide(decode(raw));
      const nextRaw = encode(next);
      if (nextRaw === raw) return result;
      const swapped = await d.store.swap(backend, raw, nextRaw);
      if (swapped.done || attempt >= 10) return result;
      raw = swapped.current;
    }
  }
  return {
    admit: (backend) =>
      step(backend, (current) => {
        const a = admit(current, d.now(), d.policy);
        return { next: a.next, result: { allowed: a.allowed, trial: a.trial } };
      }),
    record: (backend, outcome) => step(backend, (current) => ({ next: afterCall(current, outcome, d.now(), d.policy), result: undefined })),
    async health(backends) {
      const raws = await d.store.readMany(backends);
      const now = d.now();
      return Object.fromEntries(backends.map((b, i) => [b, healthOf(decode(raws[i]), now)]));
    },
  };
}
