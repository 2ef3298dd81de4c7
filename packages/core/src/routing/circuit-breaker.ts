/**
 * The per-backend circuit breaker's rules (docs/operating/models.md, "The circuit breaker"), as
 * pure functions over a small state: the stores (memory, Redis) only load and save it.
 *
 * Every call to a backend has one outcome: `ok` (it answered, a 4xx refusal included),
 * `transient` (a timeout, a 5xx, a refused connection, an unreadable answer) or `slow` (still in
 * flight past the backend's slow-call threshold: recorded the moment it crosses it, not when it
 * ends, so a backend that hangs is judged within that threshold however long its calls wait).
 * `transient` and `slow` are bad. The breaker judges a backend by its last `windowCalls`
 * outcomes, whatever their rhythm:
 *
 * closed    → calls go through. It opens when the last `failures` outcomes were all bad, or when
 *             the window is full and at least `failureRate` of it is bad.
 * open      → calls are refused until `openUntil`; the first call after it is the one trial.
 * half-open → one trial call is in flight; others are refused until it ends (or, if its worker
 *             died, until `trialMs` passed and another call takes the trial over).
 *
 * A window in which nothing went bad for `windowMs` forgets its bad outcomes, so a backend
 * called rarely is not judged by last week's failures.
 */

export interface BreakerPolicy {
  /** Consecutive bad outcomes that open the breaker. */
  failures: number;
  /** Share (0..1] of a full window that, bad, opens the breaker. */
  failureRate: number;
  /** How many of the most recent outcomes the breaker judges by. */
  windowCalls: number;
  /** A window whose last bad outcome is older than this forgets its bad outcomes. */
  windowMs: number;
  /** How long an open breaker refuses calls before it lets one trial through. */
  coolOffMs: number;
  /** How long a trial may run before another call may take its place (its worker may have died). */
  trialMs: number;
}

export const DEFAULT_BREAKER_POLICY: BreakerPolicy = { failures: 3, failureRate: 0.5, windowCalls: 10, windowMs: 600_000, coolOffMs: 30_000, trialMs: 120_000 };

export type BreakerState =
  /** `calls`: one character per outcome, oldest first, at most `windowCalls`: `1` bad, `0` ok. */
  | { state: 'closed'; calls: string; lastBadAt: number }
  | { state: 'open'; openUntil: number; openedAt: number }
  | { state: 'half-open'; trialStartedAt: number };

export const CLOSED: BreakerState = { state: 'closed', calls: '', lastBadAt: 0 };

/** How a call ended, or that it is still in flight past the slow-call threshold (`slow`). */
export type CallOutcome = 'ok' | 'transient' | 'slow';

export const isBadOutcome = (outcome: CallOutcome): boolean => outcome !== 'ok';

export interface Admission {
  /** Whether the call may go to the backend. */
  allowed: boolean;
  /** Set when this call is the half-open trial. */
  trial: boolean;
  next: BreakerState;
}

/** Whether a call may go to the backend now, and the state after deciding (a trial marks the breaker half-open). */
export function admit(current: BreakerState, now: number, policy: BreakerPolicy): Admission {
  switch (current.state) {
    case 'closed':
      return { allowed: true, trial: false, next: current };
    case 'open':
      if (now < current.openUntil) return { allowed: false, trial: false, next: current };
      return { allowed: true, trial: true, next: { state: 'half-open', trialStartedAt: now } };
    case 'half-open':
      if (now - current.trialStartedAt < policy.trialMs) return { allowed: false, trial: false, next: current };
      return { allowed: true, trial: true, next: { state: 'half-open', trialStartedAt: now } };
  }
}

const countBad = (calls: string): number => calls.split('1').length - 1;

/** Whether a closed breaker's window opens it. */
export function windowOpens(calls: string, policy: BreakerPolicy): boolean {
  const last = calls.slice(-Math.max(1, policy.failures));
  if (policy.failures > 0 && last.length >= policy.failures && !last.includes('0')) return true;
  return calls.length >= policy.windowCalls && countBad(calls) >= Math.ceil(policy.failureRate * policy.windowCalls - 1e-9);
}

/** The state after a call ended (or crossed the slow-call threshold). */
export function afterCall(current: BreakerState, outcome: CallOutcome, now: number, policy: BreakerPolicy): BreakerState {
  const bad = isBadOutcome(outcome);
  switch (current.state) {
    case 'closed': {
      const stale = current.lastBadAt > 0 && now - current.lastBadAt > policy.windowMs;
      const calls = `${stale ? current.calls.replaceAll('1', '0') : current.calls}${bad ? '1' : '0'}`.slice(-policy.windowCalls);
      if (bad && windowOpens(calls, policy)) return { state: 'open', openedAt: now, openUntil: now + policy.coolOffMs };
      return { state: 'closed', calls, lastBadAt: bad ? now : stale ? 0 : current.lastBadAt };
    }
    case 'half-open':
      return bad ? { state: 'open', openedAt: now, openUntil: now + policy.coolOffMs } : CLOSED;
    case 'open':
      // A call admitted before the breaker opened went bad too: the cool-off stands as it is.
      // One that answers shows the backend is back.
      return bad ? current : CLOSED;
  }
}

export type BackendHealth = 'up' | 'down' | 'probing';

/** What ready and /metrics say of a backend: down while open and cooling off; probing once a trial may run. */
export function healthOf(current: BreakerState, now: number): BackendHealth {
  if (current.state === 'closed') return 'up';
  if (current.state === 'open' && now < current.openUntil) return 'down';
  return 'probing';
}
