import { isStorableInstant } from './instant';

describe('isStorableInstant', () => {
  it.each([
    ['year 0', '0000-01-01T00:00:00Z', false],
    ['year 1', '0001-01-01T00:00:00Z', true],
    ['the epoch', '1970-01-01T00:00:00Z', true],
    ['the last instant of 9999', '9999-12-31T23:59:59.999Z', true],
    ['year 10000', '+010000-01-01T00:00:00Z', false],
  ])('%s → %s', (_name, iso, expected) => {
    expect(isStorableInstant(new Date(iso))).toBe(expected);
  });

  it('an invalid date is not storable', () => {
    expect(isStorableInstant(new Date('nope'))).toBe(false);
  });
});
