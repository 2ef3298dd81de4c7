import { createProgressThrottle, normalizeProgress, PROGRESS_MESSAGE_MAX } from './progress';

describe('normalizeProgress', () => {
  it.each([
    [{ fraction: 0.5 }, { fraction: 0.5 }],
    [{ fraction: 1.7 }, { fraction: 1 }],
    [{ fraction: -1 }, { fraction: 0 }],
    [{ fraction: 1 / 3 }, { fraction: 0.333 }],
    [{ fraction: Number.NaN, message: 'x' }, { message: 'x' }],
    [{ fraction: Infinity }, null],
    [{ message: '  step\n 3/20  ' }, { message: 'step 3/20' }],
    [{ message: '   ' }, null],
    [{}, null],
  ])('%j → %j', (input, expected) => {
    expect(normalizeProgress(input)).toEqual(expected);
  });

  it('shortens a long message', () => {
    const message = normalizeProgress({ message: 'x'.repeat(500) })!.message!;
    expect(message).toHaveLength(PROGRESS_MESSAGE_MAX);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe('createProgressThrottle', () => {
  let clock = 0;
  let writes: unknown[];
  beforeEach(() => {
    jest.useFakeTimers();
    clock = 0;
    writes = [];
  });
  afterEach(() => jest.useRealTimers());

  const throttle = (write = async (p: unknown) => void writes.push(p)) => createProgressThrottle({ intervalMs: 500, write, now: () => clock });
  const advance = async (ms: number) => {
    clock += ms;
    await jest.advanceTimersByTimeAsync(ms);
  };

  it('writes the first report at once, then at most one per interval, the latest winning', async () => {
    const t = throttle();
    t.report({ fraction: 0.05 });
    await advance(0);
    for (let step = 2; step <= 20; step++) {
      t.report({ fraction: step / 20 });
      await advance(50); // a report every 50 ms for a second
    }
    await advance(500);
    // 1 s of reports at 20/s: the first, one per 500 ms after it, and the last (trailing) one.
    expect(writes.length).toBeLessThanOrEqual(4);
    expect(writes[0]).toEqual({ fraction: 0.05 });
    expect(writes.at(-1)).toEqual({ fraction: 1 });
  });

  it('does not write the same state twice', async () => {
    const t = throttle();
    t.report({ fraction: 0.5, message: 'step 10/20' });
    await advance(600);
    t.report({ fraction: 0.5, message: 'step 10/20' });
    await advance(600);
    expect(writes).toEqual([{ fraction: 0.5, message: 'step 10/20' }]);
  });

  it('never overlaps writes and writes the newest report after a slow one', async () => {
    let release!: () => void;
    let inFlight = 0;
    let most = 0;
    const t = throttle(async (p) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => (release = resolve));
      inFlight--;
      writes.push(p);
    });
    t.report({ fraction: 0.1 });
    await advance(600);
    t.report({ fraction: 0.2 });
    t.report({ fraction: 0.3 });
    await advance(600);
    release();
    await advance(0);
    await advance(600);
    release();
    await advance(0);
    expect(most).toBe(1);
    expect(writes).toEqual([{ fraction: 0.1 }, { fraction: 0.3 }]);
  });

  it('stops: pending reports are dropped and later ones ignored', async () => {
    const t = throttle();
    t.report({ fraction: 0.1 });
    t.report({ fraction: 0.2 });
    t.stop();
    t.report({ fraction: 0.9 });
    await advance(2000);
    expect(writes).toEqual([{ fraction: 0.1 }]);
  });

  it('reports a failed write and tries again with the next report', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const t = createProgressThrottle({
      intervalMs: 500,
      now: () => clock,
      onError: (e) => errors.push(e),
      write: async (p) => {
        if (fail) throw new Error('redis down');
        writes.push(p);
      },
    });
    t.report({ fraction: 0.1 });
    await advance(0);
    fail = false;
    t.report({ fraction: 0.1 });
    await advance(600);
    expect(errors).toHaveLength(1);
    expect(writes).toEqual([{ fraction: 0.1 }]);
  });
});
