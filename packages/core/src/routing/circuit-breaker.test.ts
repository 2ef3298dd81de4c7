import { admit, afterCall, CLOSED, healthOf, type BreakerPolicy, type BreakerState, type CallOutcome } from './circuit-breaker';
import { createBackendBreaker } from './backend-breaker';
import { createMemoryBreakerStore } from '../ports/breaker-store';

const policy: BreakerPolicy = { failures: 3, windowMs: 10_000, coolOffMs: 5_000, trialMs: 60_000 };

describe('afterCall', () => {
  const cases: Array<[string, BreakerState, CallOutcome, number, BreakerState]> = [
    ['first failure starts the count', CLOSED, 'transient', 1000, { state: 'closed', failures: 1, firstFailureAt: 1000 }],
    ['a failure within the window adds to it', { state: 'closed', failures: 1, firstFailureAt: 1000 }, 'transient', 5000, { state: 'closed', failures: 2, firstFailureAt: 1000 }],
    ['the Nth failure within the window opens', { state: 'closed', failures: 2, firstFailureAt: 1000 }, 'transient', 9000, { state: 'open', openedAt: 9000, openUntil: 14_000 }],
    ['a failure after the window starts again', { state: 'closed', failures: 2, firstFailureAt: 1000 }, 'transient', 11_001, { state: 'closed', failures: 1, firstFailureAt: 11_001 }],
    ['a success resets the count', { state: 'closed', failures: 2, firstFailureAt: 1000 }, 'ok', 2000, CLOSED],
    ['the trial failing opens again for a full cool-off', { state: 'half-open', trialStartedAt: 20_000 }, 'transient', 21_000, { state: 'open', openedAt: 21_000, openUntil: 26_000 }],
    ['the trial succeeding closes', { state: 'half-open', trialStartedAt: 20_000 }, 'ok', 21_000, CLOSED],
    ['a late failure of a call admitted before opening keeps the cool-off', { state: 'open', openedAt: 9000, openUntil: 14_000 }, 'transient', 10_000, { state: 'open', openedAt: 9000, openUntil: 14_000 }],
    ['a late success while open closes (the backend answers)', { state: 'open', openedAt: 9000, openUntil: 14_000 }, 'ok', 10_000, CLOSED],
  ];
  it.each(cases)('%s', (_name, current, outcome, now, expected) => {
    expect(afterCall(current, outcome, now, policy)).toEqual(expected);
  });
});

describe('admit', () => {
  const cases: Array<[string, BreakerState, number, { allowed: boolean; trial: boolean; next: BreakerState }]> = [
    ['closed lets every call through', { state: 'closed', failures: 2, firstFailureAt: 1 }, 5, { allowed: true, trial: false, next: { state: 'closed', failures: 2, firstFailureAt: 1 } }],
    ['open refuses during the cool-off', { state: 'open', openedAt: 0, openUntil: 5000 }, 4999, { allowed: false, trial: false, next: { state: 'open', openedAt: 0, openUntil: 5000 } }],
    ['open lets one trial through after it', { state: 'open', openedAt: 0, openUntil: 5000 }, 5000, { allowed: true, trial: true, next: { state: 'half-open', trialStartedAt: 5000 } }],
    ['half-open refuses while the trial runs', { state: 'half-open', trialStartedAt: 5000 }, 64_999, { allowed: false, trial: false, next: { state: 'half-open', trialStartedAt: 5000 } }],
    ['half-open hands a stale trial to the next call', { state: 'half-open', trialStartedAt: 5000 }, 65_000, { allowed: true, trial: true, next: { state: 'half-open', trialStartedAt: 65_000 } }],
  ];
  it.each(cases)('%s', (_name, current, now, expected) => {
    expect(admit(current, now, policy)).toEqual(expected);
  });
});

describe('healthOf', () => {
  it.each<[BreakerState, number, string]>([
    [CLOSED, 0, 'up'],
    [{ state: 'closed', failures: 2, firstFailureAt: 0 }, 0, 'up'],
    [{ state: 'open', openedAt: 0, openUntil: 10 }, 9, 'down'],
    [{ state: 'open', openedAt: 0, openUntil: 10 }, 10, 'probing'],
    [{ state: 'half-open', trialStartedAt: 0 }, 1, 'probing'],
  ])('%j at %d is %s', (state, now, expected) => {
    expect(healthOf(state, now)).toBe(expected);
  });
});

describe('createBackendBreaker over a shared store', () => {
  it('costs a closed, healthy backend one read per admission and one per outcome, and no write', async () => {
    const inner = createMemoryBreakerStore();
    const calls = { read: 0, readMany: 0, swap: 0 };
    const store = {
      read: (b: string) => (calls.read++, inner.read(b)),
      readMany: (b: readonly string[]) => (calls.readMany++, inner.readMany(b)),
      swap: (b: string, e: string | null, n: string | null) => (calls.swap++, inner.swap(b, e, n)),
    };
    const breaker = createBackendBreaker({ store, policy, now: () => 0 });
    for (let i = 0; i < 10; i++) {
      expect((await breaker.admit('gpu')).allowed).toBe(true);
      await breaker.record('gpu', 'ok');
    }
    expect(calls).toEqual({ read: 20, readMany: 0, swap: 0 });
  });


  it('opens after the failures, gives the one trial to only one of two workers, and closes when the trial succeeds', async () => {
    let now = 0;
    const store = createMemoryBreakerStore();
    const workerA = createBackendBreaker({ store, policy, now: () => now });
    const workerB = createBackendBreaker({ store, policy, now: () => now });
    for (let i = 0; i < 3; i++) await (i % 2 ? workerA : workerB).record('gpu', 'transient');
    expect(await workerA.health(['gpu', 'hosted'])).toEqual({ gpu: 'down', hosted: 'up' });
    expect((await workerB.admit('gpu')).allowed).toBe(false);
    expect((await workerA.admit('hosted')).allowed).toBe(true);
    now = 5000;
    const [a, b] = await Promise.all([workerA.admit('gpu'), workerB.admit('gpu')]);
    expect([a.trial, b.trial].sort()).toEqual([false, true]);
    expect([a.allowed, b.allowed].filter(Boolean)).toHaveLength(1);
    await workerA.record('gpu', 'ok');
    expect(await workerB.health(['gpu'])).toEqual({ gpu: 'up' });
    expect((await workerB.admit('gpu')).allowed).toBe(true);
  });
});
