import { createBatcher } from './batch';

/** A send function whose calls stay in flight until the test settles them. */
function controlledSend() {
  const calls: Array<{ items: number[]; done: () => void; fail: () => void }> = [];
  const send = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ items, done: resolve, fail: () => reject(new Error('boom')) });
    });
  return { calls, send };
}

describe('createBatcher', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('coalesces items added within the window into one call, sent when the window closes', async () => {
    const { calls, send } = controlledSend();
    const add = createBatcher(send, 50, 40);
    add(1);
    await jest.advanceTimersByTimeAsync(20);
    add(2);
    add(3);
    await jest.advanceTimersByTimeAsync(19);
    expect(calls).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.items)).toEqual([[1, 2, 3]]);
  });

  it('sends at most `max` items per call and keeps one call in flight at a time', async () => {
    const { calls, send } = controlledSend();
    const add = createBatcher(send, 50, 40);
    for (let i = 0; i < 120; i++) add(i);
    // A full batch does not wait for the window.
    await jest.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.items.length)).toEqual([50]);
    await jest.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(1);
    calls[0].done();
    await jest.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.items.length)).toEqual([50, 50]);
    calls[1].done();
    await jest.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.items.length)).toEqual([50, 50, 20]);
    expect(calls[2].items[19]).toBe(119);
    calls[2].done();
    await jest.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(3);
  });

  it('sends items added during a call right after it, and goes on after a failed call', async () => {
    const { calls, send } = controlledSend();
    const add = createBatcher(send, 50, 40);
    add(1);
    await jest.advanceTimersByTimeAsync(40);
    add(2);
    add(3);
    await jest.advanceTimersByTimeAsync(500);
    expect(calls).toHaveLength(1);
    calls[0].fail();
    await jest.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3]]);
    calls[1].done();
    await jest.advanceTimersByTimeAsync(0);
    // Idle again: a new item waits for the window.
    add(4);
    await jest.advanceTimersByTimeAsync(39);
    expect(calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4]]);
  });

  it('survives a send that throws synchronously', async () => {
    const sent: number[][] = [];
    const add = createBatcher(
      (items: number[]) => {
        sent.push(items);
        if (items[0] === 1) throw new Error('sync');
        return Promise.resolve();
      },
      2,
      10,
    );
    add(1);
    add(2);
    add(3);
    await jest.advanceTimersByTimeAsync(20);
    expect(sent).toEqual([[1, 2], [3]]);
  });
});
