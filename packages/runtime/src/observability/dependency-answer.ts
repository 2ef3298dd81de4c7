/**
 * What GET /api/status answers from a dependency check (./dependency-status.ts runs the checks;
 * the ops server in ./metrics.ts answers with this too, so it is a module of its own).
 */
import type { BackendHealth } from '@promptpix/core';

export type CheckResult = 'ok' | 'timeout' | 'failed';

export interface DependencyStatus {
  /** Per dependency; the error itself goes to the log, never to the caller. */
  checks: Record<string, CheckResult>;
  /** Each model's backend as its circuit breaker sees it (docs/operating/models.md). */
  models?: Record<string, BackendHealth>;
}

/** GET /api/status: always 200 (it is a view, not a probe); `degraded` when any dependency is not ok. */
export const statusAnswer = (status: DependencyStatus): { status: number; body: Record<string, unknown> } => ({
  status: 200,
  body: {
    status: Object.values(status.checks).every((result) => result === 'ok') ? 'ok' : 'degraded',
    dependencies: status.checks,
    ...(status.models && { models: status.models }),
  },
});
