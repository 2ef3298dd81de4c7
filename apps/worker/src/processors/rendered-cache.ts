import type { RenderedImage } from '@promptpix/core';

/**
 * The images this worker's model calls made for jobs whose later step failed, by job id, so a
 * retry that lands here skips the model even when the job store could not keep a copy (Redis was
 * the dependency that failed). Bounded by the bytes it holds (the oldest go first) and by age.
 */
export function createRenderedCache(options: { maxBytes: number; ttlMs: number; now: () => number }) {
  const entries = new Map<string, { rendered: RenderedImage; keptAt: number }>();
  let bytes = 0;
  const remove = (jobId: string) => {
    const entry = entries.get(jobId);
    if (!entry) return;
    bytes -= entry.rendered.data.length;
    entries.delete(jobId);
  };
  return {
    get(jobId: string): RenderedImage | null {
      const entry = entries.get(jobId);
      if (!entry) return null;
      if (options.now() - entry.keptAt > options.ttlMs) {
        remove(jobId);
        return null;
      }
      return entry.rendered;
    },
    set(jobId: string, rendered: RenderedImage): void {
      remove(jobId);
      if (rendered.data.length > options.maxBytes) return;
      entries.set(jobId, { rendered, keptAt: options.now() });
      bytes += rendered.data.length;
      // Map order is insertion order: the first entries are the oldest.
      for (const oldest of entries.keys()) {
        if (bytes <= options.maxBytes) break;
        remove(oldest);
      }
    },
    delete: remove,
    /** Bytes held (tests, metrics). */
    bytes: () => bytes,
  };
}
