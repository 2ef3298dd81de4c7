/**
 * The order in which workers take waiting jobs when several groups (accounts) have work: round
 * robin between groups, first in first out within a group (docs/architecture.md, "Fair
 * dequeuing"). Both queue adapters keep this order; these rules say where a waiting job stands.
 */

/** Another group that has jobs waiting, seen from one job's place. */
export interface OtherGroup {
  /** How many jobs the group has waiting. */
  waiting: number;
  /** Whether the group's turn comes before the job's own group in the current round. */
  turnBefore: boolean;
}

/**
 * How many jobs are taken before a job whose own group has `ownAhead` jobs waiting ahead of it:
 * the job comes in its group's turn number `ownAhead + 1`, and until then every other group takes
 * one job per turn while it has any (one more when its turn in the current round comes first).
 */
export function jobsAheadInRoundRobin(ownAhead: number, others: Iterable<OtherGroup>): number {
  let ahead = ownAhead;
  for (const group of others) ahead += Math.min(group.waiting, ownAhead + (group.turnBefore ? 1 : 0));
  return ahead;
}

/** The group of a job enqueued without one. */
export const SHARED_GROUP = '';

/**
 * A generation's fairness group: its account, and the model it names when it names one. An
 * account's jobs for another model wait in a line of their own, so a model whose backend is full
 * (its jobs deferred, ../ports/queue.ts) holds up only that account's jobs for that model.
 */
export const fairnessGroupOf = (accountId: string, model: string | undefined): string => (model === undefined ? accountId : `${accountId}/${model}`);
