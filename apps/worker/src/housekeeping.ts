/**
 * Deletes the rows that per-account pruning never reaches: dashboard sessions and sign-in links of
 * accounts that never sign in again, the webhook log of accounts that get no more webhooks, and
 * uploads nobody used for UPLOAD_TTL_HOURS (their files too).
 * Every worker process runs it hourly; the deletes are idempotent, so replicas only repeat work.
 */
import type { LibraryIndexer } from '@promptpix/core';
import type { Infrastructure, Logger } from '@promptpix/runtime';

export interface HousekeepingTask {
  name: string;
  /** Deletes (or fills in) what is due; how many rows it touched. */
  run(now: Date): Promise<number>;
}

export const HOUSEKEEPING_INTERVAL_MS = 3_600_000;
/** The first pass waits a little, so a starting process does its real work first. */
const FIRST_PASS_DELAY_MS = 60_000;

export const housekeepingTasks = (
  infra: Pick<Infrastructure, 'dashboardSessions' | 'signInLinks' | 'webhookStore' | 'failedJobs'> & {
    uploads: Pick<Infrastructure['uploads'], 'removeExpired'>;
  },
): HousekeepingTask[] => [
  { name: 'expired dashboard sessions', run: (now) => infra.dashboardSessions.removeExpired(now) },
  { name: 'stale sign-in links', run: (now) => infra.signInLinks.removeStale(now) },
  { name: 'webhook log past its window', run: () => infra.webhookStore.pruneLog() },
  { name: 'failed jobs past FAILED_JOB_DAYS', run: (now) => infra.failedJobs.prune(now) },
  // Rows, then their files: an upload expires UPLOAD_TTL_HOURS after its last use.
  { name: 'expired uploads', run: (now) => infra.uploads.removeExpired(now) },
];

/** How often the worker embeds library images that have no meaning vector yet. */
export const LIBRARY_INDEX_INTERVAL_MS = 10_000;

/**
 * The shared library's meaning vectors, kept complete off every request path: new images, rows
 * from before instant matching by meaning, rows of another adapter. Replicas may embed the same
 * batch twice; the write is idempotent.
 */
export const startLibraryIndexing = (indexer: LibraryIndexer, logger: Logger, intervalMs = LIBRARY_INDEX_INTERVAL_MS): Housekeeping =>
  startHousekeeping({
    tasks: [{ name: 'library meaning vectors', run: () => indexer.indexPending() }],
    logger,
    intervalMs,
    logMessage: 'library images embedded',
  });

export interface Housekeeping {
  /** One pass now: rows deleted per task; a task that failed is logged and left out. */
  runNow(): Promise<Record<string, number>>;
  /** Stops the timer and waits for a pass in progress. */
  close(): Promise<void>;
}

export function startHousekeeping({
  tasks,
  logger,
  intervalMs = HOUSEKEEPING_INTERVAL_MS,
  now = () => new Date(),
  logMessage = 'housekeeping deleted rows',
}: {
  tasks: HousekeepingTask[];
  logger: Logger;
  intervalMs?: number;
  now?: () => Date;
  logMessage?: string;
}): Housekeeping {
  let running: Promise<Record<string, number>> | null = null;
  let timer: NodeJS.Timeout | null = null;

  async function pass(): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    for (const task of tasks) {
      try {
        deleted[task.name] = await task.run(now());
      } catch (error) {
        logger.warn('housekeeping task failed; it runs again next pass', { task: task.name, error: (error as Error).message });
      }
    }
    if (Object.values(deleted).some((count) => count > 0)) logger.info(logMessage, { deleted });
    return deleted;
  }

  function runNow() {
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  }

  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      void runNow().then(() => timer && schedule(intervalMs));
    }, delayMs);
    timer.unref();
  };
  schedule(Math.min(intervalMs, FIRST_PASS_DELAY_MS));

  return {
    runNow,
    async close() {
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
