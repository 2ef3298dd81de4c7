/**
 * Analytics events recorded off the request path: buffered in memory (bounded) and written in
 * batches. A failed write is split in halves and retried, so only the rows the store refuses are
 * dropped (one caller's bad event never costs another's); callers never wait on the store.
 *
 * Identical events waiting to be written (same account, type, image, metadata and UTC day) become
 * one row with a count: an embed batch on a busy page records the same 50 cache hits on every
 * visit, and each row costs the store far more than counting it (docs/api/analytics.md).
 */
export type ServiceEventType = 'generate' | 'cache_hit' | 'pin' | 'reject' | 'style_applied' | 'view' | 'impression' | 'click' | 'heart' | 'flag';

export interface RecordedEvent {
  accountId: string;
  eventType: ServiceEventType;
  imageId?: string | null;
  metadata?: Record<string, unknown> | null;
  createdAt: Date;
}

/** What the store receives: one row standing for `count` identical events, at the first one's time. */
export interface CountedEvent extends RecordedEvent {
  count: number;
}

export interface EventRecorderOptions {
  write: (batch: CountedEvent[]) => Promise<unknown>;
  onDropped: (count: number, reason: string, error?: unknown) => void;
  now?: () => Date;
  /** Flush when this many distinct rows wait... */
  batchSize?: number;
  /** ...or this long after the first one arrived. */
  flushIntervalMs?: number;
  /** New rows beyond this many waiting are dropped (bounded memory when the store is down); a repeat of a waiting row only counts. */
  maxBuffered?: number;
  /**
   * Writes one failed batch may take while it is split to find its bad rows. Finding one bad row
   * in 500 takes about 20; a store that is down fails them all, and this bounds that cost.
   */
  maxWritesPerBatch?: number;
  /**
   * Batch writes running at once (default: no limit). The embedded shape uses 1: its database
   * runs on the server's thread, and a request's own query then never waits behind a pile of
   * analytics writes. PostgreSQL takes them in parallel over the pool.
   */
  maxWritesInFlight?: number;
}

export interface EventRecorder {
  record(event: Omit<RecordedEvent, 'createdAt'> & { createdAt?: Date }): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createEventRecorder(o: EventRecorderOptions): EventRecorder {
  const batchSize = o.batchSize ?? 500;
  const flushIntervalMs = o.flushIntervalMs ?? 1000;
  const maxBuffered = o.maxBuffered ?? 10_000;
  const now = o.now ?? (() => new Date());
  /** Rows waiting for a writer, by coalescing key, in arrival order. */
  const buffer = new Map<string, CountedEvent>();
  let timer: NodeJS.Timeout | null = null;
  const maxWritesPerBatch = o.maxWritesPerBatch ?? 64;
  const maxWritesInFlight = o.maxWritesInFlight ?? Infinity;
  let inFlight = 0;
  const writes = new Set<Promise<void>>();

  /** Writes a batch, halving what fails; resolves to the rows left unwritten and the first error. */
  async function writeSplitting(batch: CountedEvent[]): Promise<{ dropped: number; error?: unknown }> {
    let budget = maxWritesPerBatch;
    let firstError: unknown;
    let dropped = 0;
    const events = (rows: CountedEvent[]) => rows.reduce((sum, row) => sum + row.count, 0);
    const attempt = async (rows: CountedEvent[]): Promise<void> => {
      if (budget <= 0) {
        dropped += events(rows);
        return;
      }
      budget -= 1;
      try {
        await o.write(rows);
        return;
      } catch (error) {
        firstError ??= error;
      }
      if (rows.length === 1) {
        dropped += events(rows);
        return;
      }
      const half = Math.ceil(rows.length / 2);
      await attempt(rows.slice(0, half));
      await attempt(rows.slice(half));
    };
    await attempt(batch);
    return { dropped, error: firstError };
  }

  /** Starts batch writes while there are events and a free writer. */
  function pump(): void {
    while (buffer.size > 0 && inFlight < maxWritesInFlight) {
      const batch: CountedEvent[] = [];
      for (const [key, row] of buffer) {
        if (batch.length === batchSize) break;
        batch.push(row);
        buffer.delete(key);
      }
      inFlight++;
      const write: Promise<void> = writeSplitting(batch)
        .then(({ dropped, error }) => {
          if (dropped > 0) o.onDropped(dropped, 'store write failed', error);
        })
        .finally(() => {
          inFlight--;
          writes.delete(write);
          // A capped recorder drains what waited for a writer as soon as one frees up.
          if (Number.isFinite(maxWritesInFlight)) pump();
        });
      writes.add(write);
    }
  }

  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    pump();
    while (writes.size > 0) await Promise.all([...writes]);
  }

  return {
    record(event) {
      const createdAt = event.createdAt ?? now();
      const key = coalescingKey(event, createdAt);
      const waiting = buffer.get(key);
      if (waiting) {
        waiting.count += 1;
        return;
      }
      if (buffer.size >= maxBuffered) {
        o.onDropped(1, 'buffer full');
        return;
      }
      buffer.set(key, { ...event, createdAt, count: 1 });
      if (buffer.size >= batchSize) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), flushIntervalMs);
        timer.unref();
      }
    },
    flush,
    close: flush,
  };
}

const DAY_MS = 86_400_000;
/**
 * Metadata longer than this (as JSON) is never coalesced: the key would hold a second copy of up to
 * 4 KB per buffered event. The service's own events ({via: 'embed'}, {jobId}) are far shorter.
 */
export const MAX_COALESCED_METADATA = 256;
let uncoalesced = 0;

/** Events equal in everything but their instant, within one UTC day (daily counts stay exact). */
function coalescingKey(e: Omit<RecordedEvent, 'createdAt'>, createdAt: Date): string {
  const metadata = e.metadata == null ? '' : JSON.stringify(e.metadata);
  if (metadata.length > MAX_COALESCED_METADATA) return `\u0001${uncoalesced++}`;
  return `${e.accountId}\u0000${e.eventType}\u0000${e.imageId ?? ''}\u0000${Math.floor(createdAt.getTime() / DAY_MS)}\u0000${metadata}`;
}
