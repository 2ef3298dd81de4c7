import { statementsFor, unitsOf, type ReservationClaim } from './grouped-reservation';

const nov = new Date('2026-11-01T00:00:00Z');
const dec = new Date('2026-12-01T00:00:00Z');
const claim = (accountId: string, limit = 10, periodStart = nov): ReservationClaim => ({ accountId, periodStart, limit });

describe('statementsFor', () => {
  it.each<[string, ReservationClaim[], number[][]]>([
    ['nothing', [], []],
    ['one account, same terms: one statement', [claim('a'), claim('a'), claim('a')], [[0, 1, 2]]],
    ['several accounts: one statement', [claim('a'), claim('b', 5), claim('a'), claim('c', 1, dec)], [[0, 1, 2, 3]]],
    ['an account with another limit waits for the next statement', [claim('a', 10), claim('a', 11), claim('b')], [[0, 2], [1]]],
    [
      'an account with another window too',
      [claim('a'), claim('a', 10, dec), claim('a', 10, dec), claim('a')],
      [
        [0, 3],
        [1, 2],
      ],
    ],
    ['three sets of terms: three statements', [claim('a', 1), claim('a', 2), claim('a', 3), claim('b', 2)], [[0, 3], [1], [2]]],
  ])('%s', (_name, claims, statements) => expect(statementsFor(claims)).toEqual(statements));
});

describe('unitsOf', () => {
  it.each<[string, Array<string | null>, Array<[string, number]>, Array<number | null>]>([
    ['one item, one unit', ['a'], [['a', 1]], [1]],
    ['items of one account take consecutive units in order', ['a', 'a', 'a'], [['a', 7]], [5, 6, 7]],
    ['a cache hit needs none', ['a', null, 'a'], [['a', 2]], [1, null, 2]],
    [
      'accounts count apart',
      ['a', 'b', 'a', 'b', 'b'],
      [
        ['a', 12],
        ['b', 3],
      ],
      [11, 1, 12, 2, 3],
    ],
    ['an account whose units did not fit gets none', ['a', 'b', 'a'], [['b', 4]], [null, 4, null]],
    ['nothing needed', [null, null], [], [null, null]],
  ])('%s', (_name, needs, newUsed, units) => expect(unitsOf(needs, new Map(newUsed))).toEqual(units));
});
