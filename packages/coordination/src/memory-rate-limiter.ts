import type { RateLimiter } from '@promptpix/core';

/** In-process sliding-window log; for the single-process embedded mode. */
export function createMemoryRateLimiter(): RateLimiter & { size(): number } {
  const windows = new Map<string, number[]>();
  let lastSweep = 0;

  function sweep(nowMs: number, windowMs: number) {
    if (nowMs - lastSweep < windowMs) return;
    lastSweep = nowMs;
    for (const [bucket, hits] of windows) if (hits.length === 0 || hits[hits.length - 1] <= nowMs - windowMs) windows.delete(bucket);
  }

  return {
    async hit(bucket, limit, windowMs, nowMs) {
      sweep(nowMs, windowMs);
      const hits = (windows.get(bucket) ?? []).filter((t) => t > nowMs - windowMs);
      windows.set(bucket, hits);
      if (hits.length < limit) {
        hits.push(nowMs);
        return { allowed: true, limit, remaining: limit - hits.length, retryAfterMs: 0 };
      }
      return { allowed: false, limit, remaining: 0, retryAfterMs: Math.max(1, hits[0] + windowMs - nowMs) };
    },
    size: () => windows.size,
  };
}
