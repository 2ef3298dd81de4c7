import { fairnessGroupOf, jobsAheadInRoundRobin, type OtherGroup } from './fair-order';

const before = (waiting: number): OtherGroup => ({ waiting, turnBefore: true });
const after = (waiting: number): OtherGroup => ({ waiting, turnBefore: false });

describe('jobsAheadInRoundRobin', () => {
  it.each<[string, number, OtherGroup[], number]>([
    ['alone, first in line', 0, [], 0],
    ['alone, third of its group', 2, [], 2],
    ['first of its group, another group goes first this round', 0, [before(1500)], 1],
    ['first of its group, its turn comes first', 0, [after(1500)], 0],
    // A flood of 1,500 from one account costs a newcomer one turn, not 1,500 jobs.
    ['one job behind a flooding group and a light one', 0, [before(1500), before(1)], 2],
    ['tenth of a flooding group, beside a group of three', 9, [before(3)], 12],
    ['tenth of a flooding group, the other group after it', 9, [after(3)], 12],
    ['second of its group, one group before and one after', 1, [before(5), after(5)], 1 + 2 + 1],
    ['a group with fewer jobs than turns gives only what it has', 4, [before(2), after(0)], 6],
  ])('%s', (_what, ownAhead, others, expected) => {
    expect(jobsAheadInRoundRobin(ownAhead, others)).toBe(expected);
  });
});

describe('fairnessGroupOf', () => {
  it.each<[string, string | undefined, string]>([
    ['acct-1', undefined, 'acct-1'],
    ['acct-1', 'sdxl', 'acct-1/sdxl'],
    ['acct-2', 'sdxl', 'acct-2/sdxl'],
  ])('%s with model %s → %s', (account, model, group) => {
    expect(fairnessGroupOf(account, model)).toBe(group);
  });
});
