import { createGroupCommit } from './group-commit';

/** A scheduler the test drives: each `send()` runs the batch opened since the last one. */
const manual = () => {
  const pending: Array<() => void> = [];
  return {
    schedule: (send: () => void) => void pending.push(send),
    send: () => {
      for (const s of pending.splice(0)) s();
    },
  };
};

class Refused extends Error {}

describe('group commit', () => {
  it('sends the calls of one turn as one batch and gives each caller its own answer', async () => {
    const tick = manual();
    const batches: number[][] = [];
    const call = createGroupCommit<number, number>({
      maxItems: 10,
      schedule: tick.schedule,
      run: async (items) => {
        batches.push(items);
        return items.map((i) => i * 10);
      },
    });
    const answers = Promise.all([call(1), call(2), call(3)]);
    tick.send();
    expect(await answers).toEqual([10, 20, 30]);
    const later = call(4);
    tick.send();
    expect(await later).toBe(40);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('splits a turn with more calls than maxItems into several batches', async () => {
    const tick = manual();
    const batches: number[][] = [];
    const call = createGroupCommit<number, number>({
      maxItems: 2,
      schedule: tick.schedule,
      run: async (items) => {
        batches.push(items);
        return items;
      },
    });
    const answers = Promise.all([1, 2, 3, 4, 5].map(call));
    tick.send();
    expect(await answers).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('an Error in one slot fails only its caller', async () => {
    const tick = manual();
    const call = createGroupCommit<number, number>({
      maxItems: 10,
      schedule: tick.schedule,
      run: async (items) => items.map((i) => (i === 2 ? new Error('bad item 2') : i)),
    });
    const answers = Promise.allSettled([call(1), call(2), call(3)]);
    tick.send();
    const settled = await answers;
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason.message).toBe('bad item 2');
  });

  it('a batch refused as a whole is tried item by item when the failure may be one item’s, so only that item fails', async () => {
    const tick = manual();
    const batches: number[][] = [];
    const call = createGroupCommit<number, number>({
      maxItems: 10,
      schedule: tick.schedule,
      retryAlone: (error) => error instanceof Refused,
      run: async (items) => {
        batches.push(items);
        if (items.includes(2)) throw new Refused('statement refused');
        return items;
      },
    });
    const answers = Promise.allSettled([call(1), call(2), call(3)]);
    tick.send();
    const settled = await answers;
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('a failure that is not an item’s (connection lost) fails every caller of the batch, without a retry', async () => {
    const tick = manual();
    let runs = 0;
    const call = createGroupCommit<number, number>({
      maxItems: 10,
      schedule: tick.schedule,
      retryAlone: (error) => error instanceof Refused,
      run: async () => {
        runs++;
        throw new Error('connection terminated');
      },
    });
    const answers = Promise.allSettled([call(1), call(2)]);
    tick.send();
    expect((await answers).map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect(runs).toBe(1);
  });

  it('a batch that answers too few results fails the callers left without one', async () => {
    const tick = manual();
    const call = createGroupCommit<number, number>({ maxItems: 10, schedule: tick.schedule, run: async (items) => items.slice(0, 1) });
    const answers = Promise.allSettled([call(1), call(2)]);
    tick.send();
    expect((await answers).map((s) => s.status)).toEqual(['fulfilled', 'rejected']);
  });

  it('by default batches on setImmediate: calls made through microtasks of one turn share a batch', async () => {
    const batches: number[][] = [];
    const call = createGroupCommit<number, number>({
      maxItems: 10,
      run: async (items) => {
        batches.push(items);
        return items;
      },
    });
    const viaMicrotasks = async (n: number) => {
      for (let i = 0; i < n; i++) await Promise.resolve();
      return call(n);
    };
    expect(await Promise.all([viaMicrotasks(0), viaMicrotasks(3), viaMicrotasks(7)])).toEqual([0, 3, 7]);
    expect(batches).toEqual([[0, 3, 7]]);
  });

  it('a failure that is not an Error instance (a driver error from another realm) still rejects, with its code kept', async () => {
    const tick = manual();
    const call = createGroupCommit<number, number>({
      maxItems: 10,
      schedule: tick.schedule,
      run: async () => {
        throw { code: '22P02', message: 'invalid input syntax for type uuid' };
      },
    });
    const answer = call(1);
    tick.send();
    await expect(answer).rejects.toMatchObject({ code: '22P02', message: 'invalid input syntax for type uuid' });
  });
});
