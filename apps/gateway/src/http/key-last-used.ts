/** Write a key's `lastUsedAt` at most this often per key and process. */
export const LAST_USED_INTERVAL_MS = 60_000;
/** Beyond this many remembered keys, entries older than the interval are dropped. */
const MAX_REMEMBERED = 10_000;

export interface LastUsedDeps {
  touch(keyId: string, at: Date): Promise<void>;
  now(): Date;
  onError(error: unknown): void;
  intervalMs?: number;
}

/**
 * `recordUse(keyId)` for authentication: fire-and-forget, at most one write per key per interval
 * in this process. The write is never awaited and its failure only logs (and lets the next
 * request try again), so it neither slows nor fails a request.
 */
export function createLastUsedRecorder(d: LastUsedDeps): (keyId: string) => void {
  const interval = d.intervalMs ?? LAST_USED_INTERVAL_MS;
  const written = new Map<string, number>();
  return (keyId) => {
    const now = d.now();
    const at = now.getTime();
    const last = written.get(keyId);
    if (last !== undefined && at - last < interval) return;
    if (written.size >= MAX_REMEMBERED) {
      for (const [id, t] of written) if (at - t >= interval) written.delete(id);
    }
    written.set(keyId, at);
    let pending: Promise<void>;
    try {
      pending = d.touch(keyId, now);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.catch((error: unknown) => {
      if (written.get(keyId) === at) written.delete(keyId);
      d.onError(error);
    });
  };
}
