/**
 * Readiness is about this process: it answers traffic from the moment it listens until it starts
 * shutting down. A shared dependency that blips does not make it unready (that would take every
 * gateway out of its Service at once); dependency health is in /api/status and the metrics.
 */
export interface Lifecycle {
  /** True until shutdown starts. */
  readonly ready: boolean;
  /** Called first thing on SIGTERM: readiness answers 503 while in-flight work drains. */
  stopping(): void;
}

export function createLifecycle(): Lifecycle {
  let ready = true;
  return {
    get ready() {
      return ready;
    },
    stopping() {
      ready = false;
    },
  };
}

/** The body and status of GET /api/ready (gateway and the worker's METRICS_PORT). */
export const readinessAnswer = (lifecycle: Lifecycle): { status: number; body: Record<string, string> } =>
  lifecycle.ready ? { status: 200, body: { status: 'ready' } } : { status: 503, body: { error: 'Not ready', reason: 'shutting down' } };
