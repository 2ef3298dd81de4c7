/**
 * Dependency health, as this process sees it: the database, Redis (when used), storage and each
 * model's backend. Shown by GET /api/status and `promptpix_dependency_up{dependency}`; never what
 * readiness is decided by (./lifecycle.ts), so a shared dependency's blip does not take every
 * gateway out of its Service at once.
 */
import type { BackendHealth } from '@promptpix/core';
import type { Infrastructure } from '../infrastructure';
import { createLogThrottle } from './log-throttle';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import type { CheckResult, DependencyStatus } from './dependency-answer';
import { replaceScrapedGauge } from './scraped-gauge';
import { TimeoutError, withTimeout } from '../process/timeout';

export { statusAnswer, type CheckResult, type DependencyStatus } from './dependency-answer';

export interface DependencyCheckOptions {
  /** Per check (default 2000 ms). */
  timeoutMs?: number;
  onFailure?: (dependency: string, error: unknown) => void;
  models?: () => Promise<Record<string, BackendHealth>>;
}

/**
 * Runs every check in parallel, each bounded by a timeout. /api/status answers anyone and every
 * scrape reads it, so callers that arrive while a check is running share it: a flood costs one
 * check at a time.
 */
export function dependencyCheck(checks: Record<string, () => Promise<unknown>>, options: DependencyCheckOptions = {}): () => Promise<DependencyStatus> {
  const timeoutMs = options.timeoutMs ?? 2000;
  let running: Promise<DependencyStatus> | null = null;
  const run = async (): Promise<DependencyStatus> => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
        try {
          await withTimeout(Promise.resolve().then(check), timeoutMs);
          return [name, 'ok'];
        } catch (error) {
          options.onFailure?.(name, error);
          return [name, error instanceof TimeoutError ? 'timeout' : 'failed'];
        }
      }),
    );
    const models = options.models && (await withTimeout(options.models(), timeoutMs).catch(() => undefined));
    return { checks: Object.fromEntries(results), ...(models && { models }) };
  };
  return () => {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  };
}

/** The shared dependencies of a process; a failing one is logged at most once a minute (logIntervalMs). */
export function infrastructureDependencies(
  infra: Pick<Infrastructure, 'db' | 'jobStore' | 'storage'> & Partial<Pick<Infrastructure, 'models' | 'breaker'>>,
  options: { redis: boolean; logger: Logger; timeoutMs?: number; logIntervalMs?: number },
): () => Promise<DependencyStatus> {
  const throttle = createLogThrottle(options.logIntervalMs ?? 60_000);
  return dependencyCheck(
    {
      database: () => infra.db.prisma.$queryRaw`SELECT 1`,
      ...(options.redis && { redis: () => infra.jobStore.ping() }),
      storage: () => infra.storage.ping(),
    },
    {
      timeoutMs: options.timeoutMs,
      onFailure: (dependency, error) => {
        const allowed = throttle.take(dependency);
        if (allowed.log) options.logger.warn('dependency check failed', { dependency, error, suppressedSinceLast: allowed.suppressed });
      },
      ...(infra.breaker && infra.models && { models: () => infra.breaker!.health(infra.models!.ids) }),
    },
  );
}

/** `promptpix_dependency_up{dependency}`: 1 when the dependency answered its check at scrape time, 0 when it failed or timed out. */
export function reportDependencyHealth(metrics: Metrics, status: () => Promise<DependencyStatus>): void {
  // The embedded server's gateway and worker share one registry: the last one registered reads.
  replaceScrapedGauge(metrics.registry, {
    name: 'promptpix_dependency_up',
    help: 'Whether each dependency (database, redis, storage) answered its check at scrape time: 1 up, 0 failed or timed out (the check is shared with GET /api/status)',
    labelNames: ['dependency'] as const,
    async collect() {
      this.reset();
      for (const [dependency, result] of Object.entries((await status()).checks)) this.set({ dependency }, result === 'ok' ? 1 : 0);
    },
  });
}
