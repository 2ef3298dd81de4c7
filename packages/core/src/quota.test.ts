import { addMonths, currentQuotaWindow, quotaHeaders } from './quota';

const d = (s: string) => new Date(s);

describe('addMonths', () => {
  it.each([
    ['2026-01-15T10:00:00Z', 1, '2026-02-15T10:00:00.000Z'],
    ['2026-01-31T00:00:00Z', 1, '2026-02-28T00:00:00.000Z'],
    ['2028-01-31T00:00:00Z', 1, '2028-02-29T00:00:00.000Z'],
    ['2026-12-05T00:00:00Z', 1, '2027-01-05T00:00:00.000Z'],
    ['2026-01-31T00:00:00Z', 3, '2026-04-30T00:00:00.000Z'],
  ])('%s + %d months = %s', (from, months, to) => expect(addMonths(d(from), months).toISOString()).toBe(to));
});

describe('currentQuotaWindow', () => {
  it.each([
    // anchor, now, start, resetAt, rolled
    ['2026-03-10T00:00:00Z', '2026-03-20T00:00:00Z', '2026-03-10T00:00:00.000Z', '2026-04-10T00:00:00.000Z', false],
    ['2026-03-10T00:00:00Z', '2026-04-10T00:00:00Z', '2026-04-10T00:00:00.000Z', '2026-05-10T00:00:00.000Z', true],
    ['2026-03-10T00:00:00Z', '2026-04-09T23:59:59Z', '2026-03-10T00:00:00.000Z', '2026-04-10T00:00:00.000Z', false],
    ['2026-01-31T00:00:00Z', '2026-03-01T00:00:00Z', '2026-02-28T00:00:00.000Z', '2026-03-31T00:00:00.000Z', true],
    ['2025-06-15T00:00:00Z', '2026-11-23T00:00:00Z', '2026-11-15T00:00:00.000Z', '2026-12-15T00:00:00.000Z', true],
  ])('anchor %s at %s → [%s, %s)', (anchor, now, start, resetAt, rolled) => {
    const w = currentQuotaWindow(d(anchor), d(now));
    expect(w.start.toISOString()).toBe(start);
    expect(w.resetAt.toISOString()).toBe(resetAt);
    expect(w.rolled).toBe(rolled);
  });
});

it('renders the spec quota headers', () => {
  expect(quotaHeaders({ used: 3, limit: 100, resetAt: d('2026-12-01T00:00:00Z') })).toEqual({
    'X-Quota-Used': '3',
    'X-Quota-Limit': '100',
    'X-Quota-Reset': '2026-12-01T00:00:00.000Z',
  });
});
