import type Redis from 'ioredis';
import type { BudgetCounter } from '@promptpix/core';

/**
 * Check every counter, then add one to each with its time to live: one Lua call (one round trip)
 * shared by every gateway, so concurrent requests never count past a limit.
 */
const TAKE = `
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') >= tonumber(ARGV[i * 2 - 1]) then return i end
end
for i = 1, #KEYS do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[i * 2]) end
end
return 0
`;

/** Never below zero: a counter expired between take and give back stays gone. */
const GIVE_BACK = `
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 0
`;

type WithBudget = Redis & {
  promptpixBudgetTake(count: number, ...args: Array<string | number>): Promise<number>;
  promptpixBudgetGiveBack(count: number, ...keys: string[]): Promise<number>;
};

export function createRedisBudgetCounter(options: { redis: Redis; prefix: string }): BudgetCounter {
  if (!('promptpixBudgetTake' in options.redis)) {
    options.redis.defineCommand('promptpixBudgetTake', { lua: TAKE });
    options.redis.defineCommand('promptpixBudgetGiveBack', { lua: GIVE_BACK });
  }
  const redis = options.redis as WithBudget;
  const key = (counter: string) => options.prefix + counter;
  return {
    async take(windows) {
      const full = await redis.promptpixBudgetTake(windows.length, ...windows.map((w) => key(w.counter)), ...windows.flatMap((w) => [w.limit, w.ttlMs]));
      return full === 0 ? { taken: true } : { taken: false, full: full - 1 };
    },
    async giveBack(counters) {
      if (counters.length > 0) await redis.promptpixBudgetGiveBack(counters.length, ...counters.map(key));
    },
    async read(counters) {
      if (counters.length === 0) return [];
      return (await options.redis.mget(...counters.map(key))).map((v) => Number(v ?? 0));
    },
  };
}

/** In-process counters for the embedded shape; expired windows are swept as new ones start. */
export function createMemoryBudgetCounter(now: () => number = Date.now): BudgetCounter & { size(): number } {
  const counters = new Map<string, { value: number; expiresAt: number }>();
  let nextSweep = 0;
  const live = (counter: string, at: number) => {
    const entry = counters.get(counter);
    return entry && entry.expiresAt > at ? entry : undefined;
  };
  const sweep = (at: number) => {
    if (at < nextSweep) return;
    nextSweep = at + 60_000;
    for (const [counter, entry] of counters) if (entry.expiresAt <= at) counters.delete(counter);
  };
  return {
    async take(windows) {
      const at = now();
      sweep(at);
      const full = windows.findIndex((w) => (live(w.counter, at)?.value ?? 0) >= w.limit);
      if (full >= 0) return { taken: false, full };
      for (const w of windows) {
        const entry = live(w.counter, at);
        if (entry) entry.value += 1;
        else counters.set(w.counter, { value: 1, expiresAt: at + w.ttlMs });
      }
      return { taken: true };
    },
    async giveBack(names) {
      const at = now();
      for (const counter of names) {
        const entry = live(counter, at);
        if (entry && entry.value > 0) entry.value -= 1;
      }
    },
    async read(names) {
      const at = now();
      return names.map((counter) => live(counter, at)?.value ?? 0);
    },
    size: () => counters.size,
  };
}
