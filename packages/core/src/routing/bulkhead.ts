/**
 * A bulkhead per model backend (docs/operating/models.md, "Isolation between backends"): a limit
 * on the calls in flight to it from this worker process, and one on the calls in flight to it from
 * every worker together (leases in a PermitStore: Redis in production, this process embedded). A
 * job whose backend is at either limit does not wait in a worker slot: the worker defers it in the
 * queue (JobDeferredError), so the other models keep their slots.
 */
import { randomUUID } from 'node:crypto';
import type { PermitStore } from '../ports/permit-store';
import type { BreakerPolicy } from './circuit-breaker';

/** What a model backend may take, and how long its calls may last (resolved per model from its kind's defaults and the operator's settings). */
export interface BackendLimits {
  /** The longest one call may take; null: no limit (the built-in renderer, in process). */
  timeoutMs: number | null;
  /** A call in flight longer than this counts as bad for the breaker the moment it crosses it; null: never. */
  slowCallMs: number | null;
  /** Calls in flight at once from one worker process. */
  maxInFlightPerWorker: number;
  /** Calls in flight at once from every worker together; null: no overall limit. */
  maxInFlight: number | null;
}

/**
 * A backend's breaker rules: the operator's, except that the bad calls in a row that open it are
 * at most the calls it may have in flight at once (a backend that may hold two calls, both hung,
 * opens on those two), and that a trial may run as long as one call may, plus 30 s.
 */
export function breakerPolicyFor(base: BreakerPolicy, limits: BackendLimits): BreakerPolicy {
  return {
    ...base,
    failures: limits.maxInFlight === null ? base.failures : Math.max(1, Math.min(base.failures, limits.maxInFlight)),
    trialMs: (limits.timeoutMs ?? 60_000) + 30_000,
  };
}

export interface BulkheadPermit {
  /** Gives the permit back (once; later calls do nothing). */
  release(): void;
}

export interface BackendBulkhead {
  /**
   * A permit for one call to `backend`, or null when this worker or all workers together have as
   * many calls in flight to it as it may. `force` (the breaker's one trial call) takes a permit
   * beyond the limits.
   */
  acquire(backend: string, options?: { force?: boolean }): Promise<BulkheadPermit | null>;
  /** Calls this process has in flight, by backend. */
  inFlight(): Record<string, number>;
  /** Stops renewing leases (the process is closing). */
  close(): void;
}

/** How long an overall permit lasts without renewal (a worker that died frees its permits after this). */
export const PERMIT_LEASE_MS = 60_000;

export function createBackendBulkhead(d: {
  limits: (backend: string) => Pick<BackendLimits, 'maxInFlight' | 'maxInFlightPerWorker'>;
  store: PermitStore;
  now: () => number;
  /** The store could not be reached: the call goes on under this worker's own limit only. */
  onStoreError: (error: unknown) => void;
  leaseMs?: number;
}): BackendBulkhead {
  const leaseMs = d.leaseMs ?? PERMIT_LEASE_MS;
  const local = new Map<string, number>();
  /** Overall permits this process holds: holder → backend. */
  const leases = new Map<string, string>();

  const renewAll = async () => {
    for (const [holder, backend] of leases) {
      try {
        // A lease that lapsed (the store was unreachable for a whole lease) is taken again: the call is in flight.
        if (!(await d.store.renew(backend, holder, leaseMs, d.now())) && leases.has(holder))
          await d.store.acquire(backend, holder, Number.MAX_SAFE_INTEGER, leaseMs, d.now());
      } catch (error) {
        d.onStoreError(error);
      }
    }
  };
  const timer = setInterval(() => void renewAll(), Math.max(100, Math.floor(leaseMs / 3)));
  timer.unref();

  const count = (backend: string, delta: number) => {
    const next = (local.get(backend) ?? 0) + delta;
    if (next > 0) local.set(backend, next);
    else local.delete(backend);
  };

  return {
    async acquire(backend, options = {}) {
      const limits = d.limits(backend);
      if (!options.force && (local.get(backend) ?? 0) >= limits.maxInFlightPerWorker) return null;
      // Counted before the store's round trip, so concurrent acquires in this process see each other.
      count(backend, 1);
      let holder: string | null = null;
      if (limits.maxInFlight !== null) {
        holder = `${backend}:${randomUUID()}`;
        try {
          if (!(await d.store.acquire(backend, holder, options.force ? Number.MAX_SAFE_INTEGER : limits.maxInFlight, leaseMs, d.now()))) {
            count(backend, -1);
            return null;
          }
          leases.set(holder, backend);
        } catch (error) {
          d.onStoreError(error);
          holder = null;
        }
      }
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          count(backend, -1);
          if (holder === null) return;
          leases.delete(holder);
          // A release that does not land lapses with its lease.
          d.store.release(backend, holder).catch(d.onStoreError);
        },
      };
    },
    inFlight: () => Object.fromEntries(local),
    close: () => clearInterval(timer),
  };
}
