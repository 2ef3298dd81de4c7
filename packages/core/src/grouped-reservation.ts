/**
 * Rules of a grouped quota reservation (several fresh generations' cache lookups and quota units
 * in one statement, see packages/db's `findCachedOrReserveMany`). The statement adds, per account,
 * the number of units its items need in one conditional UPDATE (`used + n <= limit`, all or none),
 * so one account may appear in a statement with one window and one limit only.
 */

export interface ReservationClaim {
  accountId: string;
  periodStart: Date;
  limit: number;
}

/**
 * Splits claims (by index) into statements in which each account has one window and one limit;
 * a claim that disagrees with an earlier one of its account goes to a later statement. Order
 * within a statement follows the input.
 */
export function statementsFor(claims: readonly ReservationClaim[]): number[][] {
  const statements: Array<{ indexes: number[]; terms: Map<string, string> }> = [];
  claims.forEach((claim, index) => {
    const terms = `${claim.periodStart.getTime()}/${claim.limit}`;
    let target = statements.find((s) => (s.terms.get(claim.accountId) ?? terms) === terms);
    if (!target) {
      target = { indexes: [], terms: new Map() };
      statements.push(target);
    }
    target.indexes.push(index);
    target.terms.set(claim.accountId, terms);
  });
  return statements.map((s) => s.indexes);
}

/**
 * Which `used` each item's unit stands for. `needs[i]` is item i's account when it needs a unit
 * (its key had no image), else null; `newUsed` is each account's used after the statement, absent
 * where the statement reserved nothing (the account's units did not all fit). An account's items
 * take the units it gained in input order: with k items and new used U, U-k+1 … U.
 */
export function unitsOf(needs: ReadonlyArray<string | null>, newUsed: ReadonlyMap<string, number>): Array<number | null> {
  const remaining = new Map<string, number>();
  for (const account of needs) if (account !== null) remaining.set(account, (remaining.get(account) ?? 0) + 1);
  const taken = new Map<string, number>();
  return needs.map((account) => {
    if (account === null) return null;
    const used = newUsed.get(account);
    if (used === undefined) return null;
    const before = taken.get(account) ?? 0;
    taken.set(account, before + 1);
    return used - remaining.get(account)! + before + 1;
  });
}
