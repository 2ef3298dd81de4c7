import { budgetExceededMessage, budgetWindows, DAY_MS, DEFAULT_PUBLISHABLE_BUDGET, effectiveBudget, HOUR_MS, keyDayCounter } from './publishable-budget';

describe('effectiveBudget', () => {
  it.each([
    [{}, DEFAULT_PUBLISHABLE_BUDGET],
    [
      { clientPerHour: 5, keyPerDay: null },
      { ...DEFAULT_PUBLISHABLE_BUDGET, clientPerHour: 5 },
    ],
    [
      { clientPerHour: 0, clientPerDay: 1, keyPerHour: 2, keyPerDay: 3 },
      { clientPerHour: 0, clientPerDay: 1, keyPerHour: 2, keyPerDay: 3 },
    ],
  ])('%j → %j', (overrides, budget) => expect(effectiveBudget(DEFAULT_PUBLISHABLE_BUDGET, overrides)).toEqual(budget));
});

describe('budgetWindows', () => {
  const budget = { clientPerHour: 1, clientPerDay: 2, keyPerHour: 3, keyPerDay: 4 };
  const at = 10 * DAY_MS + 5 * HOUR_MS + 123;

  it('names one counter per client and key, hour and day, with its limit', () => {
    expect(budgetWindows('k1', '203.0.113.9', budget, at)).toEqual([
      { name: 'clientPerHour', counter: 'budget:client:k1:203.0.113.9:h:245', limit: 1, ttlMs: HOUR_MS },
      { name: 'clientPerDay', counter: 'budget:client:k1:203.0.113.9:d:10', limit: 2, ttlMs: DAY_MS },
      { name: 'keyPerHour', counter: 'budget:key:k1:h:245', limit: 3, ttlMs: HOUR_MS },
      { name: 'keyPerDay', counter: keyDayCounter('k1', at), limit: 4, ttlMs: 8 * DAY_MS },
    ]);
  });

  it.each([
    ['the next hour', at + HOUR_MS, ['clientPerHour', 'keyPerHour']],
    ['the next day', at + DAY_MS, ['clientPerHour', 'clientPerDay', 'keyPerHour', 'keyPerDay']],
    ['later the same hour', at + 60_000, []],
  ])('%s starts new windows for %j', (_label, later, changed) => {
    const before = budgetWindows('k1', 'c', budget, at);
    const after = budgetWindows('k1', 'c', budget, later);
    expect(after.filter((w, i) => w.counter !== before[i].counter).map((w) => w.name)).toEqual(changed);
  });

  it('keeps keys and clients apart', () => {
    const counters = [budgetWindows('k1', 'a', budget, at), budgetWindows('k1', 'b', budget, at), budgetWindows('k2', 'a', budget, at)].map((ws) =>
      ws.map((w) => w.counter),
    );
    expect(counters[0][0]).not.toBe(counters[1][0]);
    expect(counters[0][2]).toBe(counters[1][2]);
    expect(counters[0][2]).not.toBe(counters[2][2]);
  });
});

describe('budgetExceededMessage', () => {
  it.each([
    ['clientPerHour', 'hourly, per client'],
    ['clientPerDay', 'daily, per client'],
    ['keyPerHour', 'hourly, per key'],
    ['keyPerDay', 'daily, per key'],
  ] as const)('%s says %s', (name, words) => expect(budgetExceededMessage(name)).toContain(words));
});
