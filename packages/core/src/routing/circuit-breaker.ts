/**
 * The per-backend circuit breaker's rules (docs/operating/models.md, "The circuit breaker"), as
 * pure functions over a small state: the stores (memory, Redis) only load and save it.
 *
 * closed    → calls go through; transient failures are counted within `windowMs`, and the
 *             `failures`-th opens the breaker.
 * open      → calls are refused until `openUntil`; the first call after it is the one trial.
 * half-open → one trial call is in flight; others are refused until it ends (or, if its worker
 *             died, until `trialMs` passed and another call takes the trial over).
 */

export interface BreakerPolicy {
  /** Consecutive transient failures within `windowMs` that open the breaker. */
  failures: number;
  windowMs: number;
  /** How long an open breaker refuses calls before it lets one trial through. */
  coolOffMs: number;
  /** How long a trial may run before another call may take its place (its worker may have died). */
  trialMs: number;
}

export const DEFAULT_BREAKER_POLICY: BreakerPolicy = { failures: 5, windowMs: 60_000, coolOffMs: 30_000, trialMs: 120_000 };

export type BreakerState =
  | { state: 'closed'; failures: number; firstFailureAt: number }
  | { state: 'open'; openUntil: number; openedAt: number }
  | { state: 'half-open'; trialStartedAt: number };

export const CLOSED: BreakerState = { state: 'closed', failures: 0, firstFailureAt: 0 };

/** How a call ended: `transient` (timeout, 5xx, connection refused) counts; `ok` (it answered, even a 4xx) resets. */
export type CallOutcome = 'ok' | 'transient';

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

/** The state after a call ended. */
export function afterCall(current: BreakerState, outcome: CallOutcome, now: number, policy: BreakerPolicy): BreakerState {
  if (outcome === 'ok') return CLOSED;
  const open = (): BreakerState => ({ state: 'open', openedAt: now, openUntil: now + policy.coolOffMs });
  switch (current.state) {
    case 'closed': {
      const fresh = current.failures === 0 || now - current.firstFailureAt > policy.windowMs;
      const failures = fresh ? 1 : current.failures + 1;
      if (failures >= policy.failures) return open();
      return { state: 'closed', failures, firstFailureAt: fresh ? now : current.firstFailureAt };
    }
    case 'half-open':
      return open();
    case 'open':
      // A call admitted before the breaker opened failed too: the cool-off stands as it is.
      return current;
  }
}

export type BackendHealth = 'up' | 'down' | 'probing';

/** What ready and /metrics say of a backend: down while open and cooling off; probing once a trial may run. */
export function healthOf(current: BreakerState, now: number): BackendHealth {
  if (current.state === 'closed') return 'up';
  if (current.state === 'open' && now < current.openUntil) return 'down';
  return 'probing';
}
