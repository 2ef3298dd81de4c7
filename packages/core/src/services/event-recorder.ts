/**
 * Analytics events recorded off the request path: buffered in memory (bounded) and written in
 * batches, one at a time. A failed write drops that batch and reports it; callers never wait on
 * the store.
 */
export type ServiceEventType = 'generate' | 'cache_hit' | 'pin' | 'reject' | 'style_applied' | 'view' | 'impression' | 'click' | 'heart' | 'flag';

export interface RecordedEvent {
  accountId: string;
  eventType: ServiceEventType;
  imageId?: string | null;
  metadata?: Record<string, unknown> | null;
  createdAt: Date;
}

export interface EventRecorderOptions {
  write: (batch: RecordedEvent[]) => Promise<unknown>;
  onDropped: (count: number, reason: string, error?: unknown) => void;
  now?: () => Date;
  /** Flush when this many events wait... */
  batchSize?: number;
  /** ...or this long after the first one arrived. */
  flushIntervalMs?: number;
  /** Events beyond this many waiting are dropped (bounded memory when the store is down). */
  maxBuffered?: number;
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
  let buffer: RecordedEvent[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> | null = null;

  /**
   * One batch in flight at a time, the rest waits here: a request's own query then never queues
   * behind a pile of analytics writes (in the embedded shape the database also shares the
   * server's thread). Events recorded meanwhile join the next batch.
   */
  function drain(): Promise<void> {
    writing ??= (async () => {
      while (buffer.length > 0) {
        const batch = buffer.splice(0, batchSize);
        await Promise.resolve()
          .then(() => o.write(batch))
          .then(
            () => undefined,
            (error: unknown) => o.onDropped(batch.length, 'store write failed', error),
          );
      }
    })().finally(() => {
      writing = null;
    });
    return writing;
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    return drain();
  }

  return {
    record(event) {
      if (buffer.length >= maxBuffered) {
        o.onDropped(1, 'buffer full');
        return;
      }
      buffer.push({ ...event, createdAt: event.createdAt ?? now() });
      if (buffer.length >= batchSize) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), flushIntervalMs);
        timer.unref();
      }
    },
    flush,
    close: flush,
  };
}
