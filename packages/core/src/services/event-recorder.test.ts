import { createEventRecorder, MAX_COALESCED_METADATA, type CountedEvent, type RecordedEvent } from './event-recorder';

const event = (n: number) => ({ accountId: 'a', eventType: 'generate' as const, metadata: { n } });

describe('event recorder', () => {
  it('writes buffered events in batches of at most batchSize', async () => {
    const batches: RecordedEvent[][] = [];
    const recorder = createEventRecorder({ write: async (b) => batches.push(b), onDropped: jest.fn(), batchSize: 3, flushIntervalMs: 10_000 });
    for (let i = 0; i < 7; i++) recorder.record(event(i));
    await recorder.flush();
    expect(batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(batches.flat().map((e) => e.metadata?.n)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('flushes on its own after the interval', async () => {
    const written: RecordedEvent[] = [];
    const recorder = createEventRecorder({ write: async (b) => written.push(...b), onDropped: jest.fn(), flushIntervalMs: 20 });
    recorder.record(event(1));
    await new Promise((r) => setTimeout(r, 60));
    expect(written).toHaveLength(1);
  });

  it('drops a batch whose write fails and reports it, without throwing', async () => {
    const onDropped = jest.fn();
    const recorder = createEventRecorder({
      write: async () => {
        throw new Error('db down');
      },
      onDropped,
      flushIntervalMs: 10_000,
    });
    recorder.record(event(1));
    recorder.record(event(2));
    await expect(recorder.flush()).resolves.toBeUndefined();
    expect(onDropped).toHaveBeenCalledWith(2, 'store write failed', expect.any(Error));
  });

  it('a batch the store refuses is split: only the bad rows are dropped, counted and reported once', async () => {
    const onDropped = jest.fn();
    const written: RecordedEvent[] = [];
    const refusesBad = async (b: RecordedEvent[]) => {
      if (b.some((e) => e.metadata?.bad)) throw new Error('unsupported Unicode escape sequence');
      written.push(...b);
    };
    const recorder = createEventRecorder({ write: refusesBad, onDropped, batchSize: 100, flushIntervalMs: 10_000 });
    for (let i = 0; i < 40; i++) recorder.record(i === 7 || i === 30 ? { ...event(i), metadata: { n: i, bad: true } } : event(i));
    await recorder.flush();
    expect(written.map((e) => e.metadata?.n).sort((a, b) => Number(a) - Number(b))).toEqual([...Array(40).keys()].filter((n) => n !== 7 && n !== 30));
    expect(onDropped).toHaveBeenCalledTimes(1);
    expect(onDropped).toHaveBeenCalledWith(2, 'store write failed', expect.any(Error));
  });

  it('a store that is down costs a bounded number of writes per batch', async () => {
    const onDropped = jest.fn();
    const write = jest.fn(async () => {
      throw new Error('db down');
    });
    const recorder = createEventRecorder({ write, onDropped, batchSize: 500, flushIntervalMs: 10_000, maxWritesPerBatch: 16 });
    for (let i = 0; i < 500; i++) recorder.record(event(i));
    await recorder.flush();
    expect(write.mock.calls.length).toBeLessThanOrEqual(16);
    expect(onDropped).toHaveBeenCalledWith(500, 'store write failed', expect.any(Error));
  });

  it('bounds memory: events beyond maxBuffered are dropped', async () => {
    const onDropped = jest.fn();
    const written: RecordedEvent[] = [];
    const recorder = createEventRecorder({ write: async (b) => written.push(...b), onDropped, maxBuffered: 5, batchSize: 100, flushIntervalMs: 10_000 });
    for (let i = 0; i < 8; i++) recorder.record(event(i));
    expect(onDropped).toHaveBeenCalledTimes(3);
    await recorder.close();
    expect(written).toHaveLength(5);
  });

  it('with one write in flight at most, the next batch waits for it, and close waits for all', async () => {
    const started: number[] = [];
    const finish: Array<() => void> = [];
    const write = (b: RecordedEvent[]) => {
      started.push(b.length);
      return new Promise<void>((resolve) => finish.push(resolve));
    };
    const recorder = createEventRecorder({ write, onDropped: jest.fn(), batchSize: 2, flushIntervalMs: 10_000, maxWritesInFlight: 1 });
    for (let i = 0; i < 5; i++) recorder.record(event(i));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([2]);
    let closed = false;
    const closing = recorder.close().then(() => (closed = true));
    finish[0]();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([2, 2]);
    finish[1]();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([2, 2, 1]);
    expect(closed).toBe(false);
    finish[2]();
    await closing;
    expect(closed).toBe(true);
  });

  it('a write that throws at once is reported like a failed one', async () => {
    const onDropped = jest.fn();
    const recorder = createEventRecorder({
      write: () => {
        throw new Error('no connection');
      },
      onDropped,
      flushIntervalMs: 10_000,
    });
    recorder.record(event(1));
    await expect(recorder.flush()).resolves.toBeUndefined();
    expect(onDropped).toHaveBeenCalledWith(1, 'store write failed', expect.any(Error));
  });

  it('without a limit, full batches are written in parallel', async () => {
    let running = 0;
    let most = 0;
    const write = async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    const recorder = createEventRecorder({ write, onDropped: jest.fn(), batchSize: 2, flushIntervalMs: 10_000 });
    for (let i = 0; i < 6; i++) recorder.record(event(i));
    await recorder.close();
    expect(most).toBe(3);
  });

  describe('identical events waiting together become one row with a count', () => {
    const at = (iso: string) => new Date(iso);
    const hit = (over: Partial<RecordedEvent> = {}) => ({
      accountId: 'a',
      eventType: 'cache_hit' as const,
      imageId: 'i1',
      metadata: { via: 'embed' },
      createdAt: at('2026-11-25T10:00:00Z'),
      ...over,
    });

    it.each<[string, Partial<RecordedEvent>, number]>([
      ['the same event again', {}, 1],
      ['a later instant of the same day', { createdAt: at('2026-11-25T23:59:59Z') }, 1],
      ['another UTC day', { createdAt: at('2026-11-26T00:00:00Z') }, 2],
      ['another account', { accountId: 'b' }, 2],
      ['another image', { imageId: 'i2' }, 2],
      ['no image', { imageId: null }, 2],
      ['other metadata', { metadata: { via: 'render' } }, 2],
      ['no metadata', { metadata: null }, 2],
      ['another type', { eventType: 'impression' }, 2],
    ])('%s: %i row(s)', async (_name, second, rows) => {
      const written: CountedEvent[] = [];
      const recorder = createEventRecorder({ write: async (b) => written.push(...b), onDropped: jest.fn(), flushIntervalMs: 10_000 });
      recorder.record(hit());
      recorder.record(hit(second));
      await recorder.close();
      expect(written).toHaveLength(rows);
      expect(written.reduce((sum, e) => sum + e.count, 0)).toBe(2);
      expect(written[0].createdAt).toEqual(at('2026-11-25T10:00:00Z'));
    });

    it('an embed batch recorded 40 times is 50 rows of count 40, in arrival order', async () => {
      const written: CountedEvent[] = [];
      const recorder = createEventRecorder({ write: async (b) => written.push(...b), onDropped: jest.fn(), batchSize: 100, flushIntervalMs: 10_000 });
      for (let visit = 0; visit < 40; visit++) for (let i = 0; i < 50; i++) recorder.record(hit({ imageId: `i${i}` }));
      await recorder.close();
      expect(written.map((e) => [e.imageId, e.count])).toEqual(Array.from({ length: 50 }, (_, i) => [`i${i}`, 40]));
    });

    it('a row already handed to the store is not counted again: the next repeat starts a new row', async () => {
      const written: CountedEvent[] = [];
      const recorder = createEventRecorder({ write: async (b) => written.push(...b), onDropped: jest.fn(), flushIntervalMs: 10_000 });
      recorder.record(hit());
      await recorder.flush();
      recorder.record(hit());
      recorder.record(hit());
      await recorder.close();
      expect(written.map((e) => e.count)).toEqual([1, 2]);
    });

    it('events with long metadata are kept one row each: the buffer never holds a second copy of it', async () => {
      const written: CountedEvent[] = [];
      const recorder = createEventRecorder({ write: async (b) => written.push(...b), onDropped: jest.fn(), flushIntervalMs: 10_000 });
      const long = { note: 'x'.repeat(MAX_COALESCED_METADATA) };
      recorder.record(hit({ metadata: long }));
      recorder.record(hit({ metadata: long }));
      await recorder.close();
      expect(written.map((e) => e.count)).toEqual([1, 1]);
    });

    it('a dropped row reports every event it stood for', async () => {
      const onDropped = jest.fn();
      const recorder = createEventRecorder({
        write: async () => {
          throw new Error('db down');
        },
        onDropped,
        flushIntervalMs: 10_000,
      });
      for (let i = 0; i < 7; i++) recorder.record(hit());
      await recorder.close();
      expect(onDropped).toHaveBeenCalledWith(7, 'store write failed', expect.any(Error));
    });

    it('with the buffer full, a repeat of a waiting row is still counted; a new row is dropped', async () => {
      const onDropped = jest.fn();
      const written: CountedEvent[] = [];
      const recorder = createEventRecorder({ write: async (b) => written.push(...b), onDropped, maxBuffered: 2, batchSize: 100, flushIntervalMs: 10_000 });
      recorder.record(hit({ imageId: 'i1' }));
      recorder.record(hit({ imageId: 'i2' }));
      recorder.record(hit({ imageId: 'i3' }));
      recorder.record(hit({ imageId: 'i1' }));
      await recorder.close();
      expect(onDropped).toHaveBeenCalledTimes(1);
      expect(written.map((e) => [e.imageId, e.count])).toEqual([
        ['i1', 2],
        ['i2', 1],
      ]);
    });
  });
});
