/**
 * Permits for the calls in flight to each model backend: the overall half of a backend's
 * bulkhead (../routing/bulkhead.ts), shared by every worker through Redis in production, held in
 * the one process embedded. A permit is a lease: it lapses `leaseMs` after it was taken or last
 * renewed, so the permits of a worker that died come back on their own.
 */
export interface PermitStore {
  /** Takes a permit of `backend` for `holder` when fewer than `limit` live ones are held, atomically. */
  acquire(backend: string, holder: string, limit: number, leaseMs: number, nowMs: number): Promise<boolean>;
  /** Extends `holder`'s permit by `leaseMs` from now; false when it had lapsed (it is then not held). */
  renew(backend: string, holder: string, leaseMs: number, nowMs: number): Promise<boolean>;
  release(backend: string, holder: string): Promise<void>;
  /** How many live permits each backend has, in the order asked. */
  held(backends: readonly string[], nowMs: number): Promise<number[]>;
}
