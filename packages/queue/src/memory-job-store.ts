/**
 * Embedded job store: records in a Map, gone `ttlSeconds` after creation. Expired records are
 * dropped when read and by a periodic sweep (an unref'd timer), so memory stays bounded.
 */
import type { JobPatch, JobRecord, JobStore, RenderedImage } from '@promptpix/core';

export interface MemoryJobStoreOptions {
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** How often expired records are swept out (default 60 s). */
  sweepIntervalMs?: number;
}

interface Entry {
  record: JobRecord;
  expiresAt: number;
  rendered?: RenderedImage;
}

/** Copies so callers never share objects with the store (as with a real store). */
const copy = <T>(value: T): T => structuredClone(value);

const definedOnly = (patch: JobPatch): JobPatch => Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as JobPatch;

export function createMemoryJobStore(options: MemoryJobStoreOptions = {}): JobStore {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  const live = (jobId: string): Entry | null => {
    const entry = entries.get(jobId);
    if (!entry) return null;
    if (entry.expiresAt <= now()) {
      entries.delete(jobId);
      return null;
    }
    return entry;
  };

  const sweep = () => {
    const t = now();
    for (const [jobId, entry] of entries) if (entry.expiresAt <= t) entries.delete(jobId);
  };
  let timer: NodeJS.Timeout | null = setInterval(sweep, options.sweepIntervalMs ?? 60_000);
  timer.unref();

  return {
    async create(record, ttlSeconds) {
      entries.set(record.jobId, { record: copy(record), expiresAt: now() + ttlSeconds * 1000 });
    },

    async get(jobId) {
      const entry = live(jobId);
      return entry ? copy(entry.record) : null;
    },

    async update(jobId, patch, condition) {
      const entry = live(jobId);
      if (!entry || (condition && !condition.ifStatus.includes(entry.record.status))) return false;
      // Identity fields are not patchable even if a caller smuggles them in.
      const { jobId: _j, accountId: _a, createdAt: _c, request: _r, ...rest } = definedOnly(patch) as JobPatch & Partial<JobRecord>;
      entry.record = { ...entry.record, ...copy(rest) };
      return true;
    },

    async keepRendered(jobId, rendered) {
      const entry = live(jobId);
      if (!entry) return false;
      entry.rendered = { ...rendered, data: Buffer.from(rendered.data) };
      return true;
    },

    async rendered(jobId) {
      const kept = live(jobId)?.rendered;
      return kept ? { ...kept, data: Buffer.from(kept.data) } : null;
    },

    async dropRendered(jobId) {
      const entry = entries.get(jobId);
      if (entry) delete entry.rendered;
    },

    async ping() {},

    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      entries.clear();
    },
  };
}
