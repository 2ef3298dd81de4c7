import { abortReason, anySignal, sleep } from './abort';

describe('abortReason', () => {
  it.each([
    ['the given reason', () => AbortSignal.abort('stop'), 'stop'],
    ['an AbortError by default', () => AbortSignal.abort(), 'AbortError'],
  ])('%s', (_label, make, expected) => {
    const reason = abortReason(make());
    expect(reason instanceof DOMException ? reason.name : reason).toBe(expected);
  });
});

describe('sleep', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('resolves after the delay and leaves no timer', async () => {
    let done = false;
    void sleep(500).then(() => (done = true));
    await jest.advanceTimersByTimeAsync(499);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('rejects at once on abort and clears its timer', async () => {
    const controller = new AbortController();
    const slept = sleep(10_000, controller.signal).catch((e: unknown) => e);
    controller.abort('gone');
    expect(await slept).toBe('gone');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('rejects without a timer when already aborted', async () => {
    await expect(sleep(10, AbortSignal.abort('early'))).rejects.toBe('early');
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('anySignal', () => {
  it.each([
    ['the first', 0],
    ['the second', 1],
  ])('aborts with the reason of %s source to abort', (_label, which) => {
    const sources = [new AbortController(), new AbortController()];
    const { signal } = anySignal([sources[0].signal, undefined, sources[1].signal]);
    sources[which].abort(`reason ${which}`);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(`reason ${which}`);
  });

  it('starts aborted when a source already is', () => {
    expect(anySignal([new AbortController().signal, AbortSignal.abort('before')]).signal.reason).toBe('before');
  });

  it('after dispose, sources no longer reach it', () => {
    const source = new AbortController();
    const linked = anySignal([source.signal]);
    linked.dispose();
    source.abort();
    expect(linked.signal.aborted).toBe(false);
  });
});
