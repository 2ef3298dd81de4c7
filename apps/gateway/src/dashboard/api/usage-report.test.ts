import { usageCsv, usageDates, usageDays, USAGE_CSV_HEADER } from './usage-report';

describe('usageDates', () => {
  it.each([
    ['one day is today', '2026-03-10T12:00:00Z', 1, ['2026-03-10']],
    ['late in the UTC day', '2026-03-10T23:59:59.999Z', 2, ['2026-03-09', '2026-03-10']],
    ['across a month end', '2026-03-01T00:00:00Z', 3, ['2026-02-27', '2026-02-28', '2026-03-01']],
    ['across a leap day', '2024-03-01T08:00:00Z', 2, ['2024-02-29', '2024-03-01']],
    ['across a year end', '2027-01-01T05:00:00Z', 2, ['2026-12-31', '2027-01-01']],
  ])('%s', (_name, now, days, expected) => {
    expect(usageDates(new Date(now), days)).toEqual(expected);
  });

  it('366 days are 366 distinct dates ending today', () => {
    const dates = usageDates(new Date('2026-06-15T10:00:00Z'), 366);
    expect(new Set(dates).size).toBe(366);
    expect(dates[365]).toBe('2026-06-15');
    expect(dates[0]).toBe('2025-06-15');
  });
});

describe('usageDays and usageCsv', () => {
  const dates = ['2026-03-08', '2026-03-09', '2026-03-10'];
  it.each([
    [
      'no events: every day zero',
      [],
      [
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
      ],
    ],
    [
      'each type to its column',
      [
        { day: '2026-03-09', eventType: 'generate' as const, count: 3 },
        { day: '2026-03-09', eventType: 'cache_hit' as const, count: 2 },
        { day: '2026-03-10', eventType: 'impression' as const, count: 7 },
        { day: '2026-03-08', eventType: 'click' as const, count: 1 },
      ],
      [
        [0, 0, 0, 1],
        [3, 2, 0, 0],
        [0, 0, 7, 0],
      ],
    ],
    [
      'days outside the range are ignored',
      [{ day: '2026-03-11', eventType: 'generate' as const, count: 9 }],
      [
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
      ],
    ],
  ])('%s', (_name, counts, expected) => {
    const days = usageDays(dates, counts);
    expect(days.map((d) => d.date)).toEqual(dates);
    expect(days.map((d) => [d.generations, d.cacheHits, d.impressions, d.clicks])).toEqual(expected);
    const lines = usageCsv(days).trimEnd().split('\n');
    expect(lines[0]).toBe(USAGE_CSV_HEADER);
    expect(lines.slice(1)).toEqual(days.map((d, i) => [d.date, ...expected[i]].join(',')));
  });
});
