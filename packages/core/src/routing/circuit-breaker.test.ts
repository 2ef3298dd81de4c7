import { admit, afterCall, CLOSED, healthOf, type BreakerPolicy, type BreakerState, type CallOutcome } from './circuit-breaker';
import { createBackendBreaker } from './backend-breaker';
import { createMemoryBreakerStore } from '../ports/breaker-store';

const policy: BreakerPolicy = { failures: 3, failureRate: 0.5, windowCalls: 6, windowMs: 10_000, coolOffMs: 5_000, trialMs: 60_000 };
const closed = (calls: string, lastBadAt: number): BreakerState => ({ state: 'closed', calls, lastBadAt });
const open = (at: number): BreakerState => ({ state: 'open', openedAt: at, openUntil: at + policy.coolOffMs });

describe('afterCall', () => {
  const cases: Array<[string, BreakerState, CallOutcome, number, BreakerState]> = [
    ['a first failure starts the window', CLOSED, 'transient', 1000, closed('1', 1000)],
    ['a call past its slow-call threshold counts as bad, at once', CLOSED, 'slow', 1000, closed('1', 1000)],
    ['an answer counts as good', closed('1', 1000), 'ok', 2000, closed('10', 1000)],
    ['the third bad outcome in a row opens', closed('011', 2000), 'transient', 3000, open(3000)],
    ['three slow calls in a row open (a backend that hangs)', closed('0000011', 2000), 'slow', 2500, open(2500)],
    ['bad outcomes with an answer between them do not open while the window is not full', closed('11', 1000), 'ok', 2000, closed('110', 1000)],
    ['…nor the next bad one, three of four', closed('110', 1000), 'transient', 3000, closed('1101', 3000)],
    ['a full window half bad opens', closed('01010', 4000), 'transient', 5000, open(5000)],
    ['a full window a third bad stays closed', closed('00010', 4000), 'transient', 5000, closed('000101', 5000)],
    ['the window keeps only the last calls', closed('101010', 4000), 'ok', 5000, closed('010100', 4000)],
    ['a healthy window full of answers does not change (no write)', closed('000000', 0), 'ok', 5000, closed('000000', 0)],
    ['rhythm does not matter: bad outcomes far apart within the window still count', closed('11', 1000), 'transient', 9999, open(9999)],
    ['a window with nothing bad for windowMs forgets its failures', closed('11', 1000), 'transient', 11_001, closed('001', 11_001)],
    ['…and an answer after that clears the old failures too', closed('110', 1000), 'ok', 11_001, closed('0000', 0)],
    ['the trial failing opens again for a full cool-off', { state: 'half-open', trialStartedAt: 20_000 }, 'transient', 21_000, open(21_000)],
    ['the trial crossing its slow-call threshold opens again', { state: 'half-open', trialStartedAt: 20_000 }, 'slow', 21_000, open(21_000)],
    ['the trial succeeding closes with an empty window', { state: 'half-open', trialStartedAt: 20_000 }, 'ok', 21_000, CLOSED],
    ['a late failure of a call admitted before opening keeps the cool-off', open(9000), 'transient', 10_000, open(9000)],
    ['a late slow crossing keeps the cool-off', open(9000), 'slow', 10_000, open(9000)],
    ['a late success while open closes (the backend answers)', open(9000), 'ok', 10_000, CLOSED],
  ];
  it.each(cases)('%s', (_name, current, outcome, now, expected) => {
    expect(afterCall(current, outcome, now, policy)).toEqual(expected);
  });

  it.each<[string, BreakerPolicy, string, boolean]>([
    ['a backend that may hold one call opens on one bad outcome', { ...policy, failures: 1 }, '0000', true],
    ['two in a row when failures is 2', { ...policy, failures: 2 }, '001', true],
    ['a rate of 0.3 of 10 calls: three bad ones open a full window', { ...policy, failures: 5, failureRate: 0.3, windowCalls: 10 }, '100100000', true],
    ['…but not two', { ...policy, failures: 5, failureRate: 0.3, windowCalls: 10 }, '100000000', false],
  ])('%s', (_name, p, before, opens) => {
    expect(afterCall(closed(before, 1), 'transient', 2, p).state).toBe(opens ? 'open' : 'closed');
  });
});

describe('admit', () => {
  const cases: Array<[string, BreakerState, number, { allowed: boolean; trial: boolean; next: BreakerState }]> = [
    ['closed lets every call through', closed('011', 1), 5, { allowed: true, trial: false, next: closed('011', 1) }],
    [
      'open refuses during the cool-off',
      { state: 'open', openedAt: 0, openUntil: 5000 },
      4999,
      { allowed: false, trial: false, next: { state: 'open', openedAt: 0, openUntil: 5000 } },
    ],
    [
      'open lets one trial through after it',
      { state: 'open', openedAt: 0, openUntil: 5000 },
      5000,
      { allowed: true, trial: true, next: { state: 'half-open', trialStartedAt: 5000 } },
    ],
    [
      'half-open refuses while the trial runs',
      { state: 'half-open', trialStartedAt: 5000 },
      64_999,
      { allowed: false, trial: false, next: { state: 'half-open', trialStartedAt: 5000 } },
    ],
    [
      'half-open hands a stale trial to the next call',
      { state: 'half-open', trialStartedAt: 5000 },
      65_000,
      { allowed: true, trial: true, next: { state: 'half-open', trialStartedAt: 65_000 } },
    ],
  ];
  it.each(cases)('%s', (_name, current, now, expected) => {
    expect(admit(current, now, policy)).toEqual(expected);
  });
});

describe('healthOf', () => {
  it.each<[BreakerState, number, string]>([
    [CLOSED, 0, 'up'],
    [closed('011', 0), 0, 'up'],
    [{ state: 'open', openedAt: 0, openUntil: 10 }, 9, 'down'],
    [{ state: 'open', openedAt: 0, openUntil: 10 }, 10, 'probing'],
    [{ state: 'half-open', trialStartedAt: 0 }, 1, 'probing'],
  ])('%j at %d is %s', (state, now, expected) => {
    expect(healthOf(state, now)).toBe(expected);
  });
});

describe('createBackendBreaker over a shared store', () => {
  function countingStore() {
    const inner = createMemoryBreakerStore();
    const calls = { read: 0, readMany: 0, swap: 0 };
    const store = {
      read: (b: string) => {
        calls.read++;
        return inner.read(b);
      },
      readMany: (b: readonly string[]) => {
        calls.readMany++;
        return inner.readMany(b);
      },
      swap: (b: string, e: string | null, n: string | null) => {
        calls.swap++;
        return inner.swap(b, e, n);
      },
    };
    return { store, calls };
  }

  it('costs a healthy backend one read per admission and one per outcome, and no write once its window is full of answers', async () => {
    const { store, calls } = countingStore();
    const breaker = createBackendBreaker({ store, policy, now: () => 0 });
    for (let i = 0; i < policy.windowCalls; i++) await breaker.record('gpu', 'ok');
    expect(calls.swap).toBe(policy.windowCalls);
    calls.read = calls.swap = 0;
    for (let i = 0; i < 10; i++) {
      expect((await breaker.admit('gpu')).allowed).toBe(true);
      expect(await breaker.record('gpu', 'ok')).toBe('up');
    }
    expect(calls).toEqual({ read: 20, readMany: 0, swap: 0 });
  });

  it('opens after the failures, gives the one trial to only one of two workers, and closes when the trial succeeds', async () => {
    let now = 0;
    const store = createMemoryBreakerStore();
    const workerA = createBackendBreaker({ store, policy, now: () => now });
    const workerB = createBackendBreaker({ store, policy, now: () => now });
    expect(await workerA.record('gpu', 'slow')).toBe('up');
    expect(await workerB.record('gpu', 'transient')).toBe('up');
    expect(await workerA.record('gpu', 'slow')).toBe('down');
    expect(await workerA.health(['gpu', 'hosted'])).toEqual({ gpu: 'down', hosted: 'up' });
    expect((await workerB.admit('gpu')).allowed).toBe(false);
    expect((await workerA.admit('hosted')).allowed).toBe(true);
    now = 5000;
    const [a, b] = await Promise.all([workerA.admit('gpu'), workerB.admit('gpu')]);
    expect([a.trial, b.trial].sort()).toEqual([false, true]);
    expect([a.allowed, b.allowed].filter(Boolean)).toHaveLength(1);
    expect(await workerA.record('gpu', 'ok')).toBe('up');
    expect(await workerB.health(['gpu'])).toEqual({ gpu: 'up' });
    expect((await workerB.admit('gpu')).allowed).toBe(true);
  });

  it("takes each backend's own policy: one that may hold two calls at once opens on two bad outcomes", async () => {
    const breaker = createBackendBreaker({
      store: createMemoryBreakerStore(),
      policy: (backend) => (backend === 'gpu' ? { ...policy, failures: 2 } : policy),
      now: () => 0,
    });
    for (const backend of ['gpu', 'hosted']) for (let i = 0; i < 2; i++) await breaker.record(backend, 'slow');
    expect(await breaker.health(['gpu', 'hosted'])).toEqual({ gpu: 'down', hosted: 'up' });
  });

  it('reads a state an older version wrote (a failure count) as a fresh window', async () => {
    const store = createMemoryBreakerStore();
    await store.swap('gpu', null, JSON.stringify({ state: 'closed', failures: 2, firstFailureAt: 0 }));
    const breaker = createBackendBreaker({ store, policy, now: () => 1 });
    expect(await breaker.record('gpu', 'transient')).toBe('up');
    expect(JSON.parse((await store.read('gpu'))!)).toEqual({ state: 'closed', calls: '1', lastBadAt: 1 });
  });
});
