import { createLastUsedRecorder } from './key-last-used';

describe('createLastUsedRecorder', () => {
  const setup = (touch: (id: string, at: Date) => Promise<void> = async () => {}) => {
    let now = 1_000_000;
    const calls: Array<[string, number]> = [];
    const errors: unknown[] = [];
    const record = createLastUsedRecorder({
      touch: (id, at) => {
        calls.push([id, at.getTime()]);
        return touch(id, at);
      },
      now: () => new Date(now),
      onError: (e) => errors.push(e),
    });
    return { record, calls, errors, advance: (ms: number) => (now += ms) };
  };

  it.each([
    ['the first use writes', [0], 1],
    ['uses within a minute write once', [0, 1_000, 59_999], 1],
    ['a use a minute later writes again', [0, 60_000], 2],
    ['every minute of steady use writes once', [0, 30_000, 60_000, 90_000, 120_000], 3],
  ])('%s', (_name, offsets, writes) => {
    const { record, calls, advance } = setup();
    let at = 0;
    for (const offset of offsets) {
      advance(offset - at);
      at = offset;
      record('k1');
    }
    expect(calls).toHaveLength(writes);
  });

  it('keys are throttled separately', () => {
    const { record, calls } = setup();
    record('k1');
    record('k2');
    record('k1');
    expect(calls.map(([id]) => id)).toEqual(['k1', 'k2']);
  });

  it('a failed write only reports, and the next use tries again', async () => {
    const { record, calls, errors } = setup(async () => {
      throw new Error('database down');
    });
    expect(() => record('k1')).not.toThrow();
    await new Promise((r) => setImmediate(r));
    expect(errors).toHaveLength(1);
    record('k1');
    expect(calls).toHaveLength(2);
  });

  it('a synchronous throw never reaches the caller', async () => {
    const errors: unknown[] = [];
    const record = createLastUsedRecorder({
      touch: () => {
        throw new Error('boom');
      },
      now: () => new Date(),
      onError: (e) => errors.push(e),
    });
    expect(() => record('k1')).not.toThrow();
    await new Promise((r) => setImmediate(r));
    expect(errors).toHaveLength(1);
  });
});
