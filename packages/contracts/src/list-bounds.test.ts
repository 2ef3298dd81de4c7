import { listBoundOf } from './list-bounds';

describe('listBoundOf', () => {
  it.each([
    ['a date, from: the start of that UTC day', '2026-11-24', 'from', '2026-11-24T00:00:00.000Z'],
    ['a date, to: the start of the next UTC day (the day is included)', '2026-11-24', 'to', '2026-11-25T00:00:00.000Z'],
    ['the last day of a year, to', '2026-12-31', 'to', '2027-01-01T00:00:00.000Z'],
    ['a local midnight with its offset', '2026-11-24T00:00:00-08:00', 'from', '2026-11-24T08:00:00.000Z'],
    ['an instant in UTC, to: taken as given', '2026-11-25T08:00:00.000Z', 'to', '2026-11-25T08:00:00.000Z'],
    ['year 1', '0001-01-01', 'from', '0001-01-01T00:00:00.000Z'],
  ] as const)('%s', (_name, value, edge, expected) => {
    expect(listBoundOf(value, edge)?.toISOString()).toBe(expected);
  });

  it.each([
    ['not a date', 'yesterday'],
    ['a month 13', '2026-13-01'],
    ['a 30th of February', '2026-02-30'],
    ['an instant without an offset', '2026-11-24T00:00:00'],
    ['year 0', '0000-01-01'],
    ['the last day of 9999, to (the next day is year 10000)', '9999-12-31'],
    ['empty', ''],
  ])('refuses %s', (_name, value) => {
    expect(listBoundOf(value, 'to')).toBeNull();
  });
});
