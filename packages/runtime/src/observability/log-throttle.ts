/**
 * At most one log line per key per interval: during an outage a dependency check fails on every
 * probe, scrape and status call, and one line a minute says as much as thousands.
 */
export interface LogThrottle {
  /** Whether to log for `key` now; `suppressed` counts the lines held back since the last one. */
  take(key: string): { log: true; suppressed: number } | { log: false };
}

export function createLogThrottle(intervalMs: number, now: () => number = Date.now): LogThrottle {
  const last = new Map<string, { at: number; suppressed: number }>();
  return {
    take(key) {
      const entry = last.get(key);
      const at = now();
      if (entry && at - entry.at < intervalMs) {
        entry.suppressed++;
        return { log: false };
      }
      last.set(key, { at, suppressed: 0 });
      return { log: true, suppressed: entry?.suppressed ?? 0 };
    },
  };
}
