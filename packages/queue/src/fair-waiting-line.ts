/** The embedded queue's waiting jobs, kept in the fair order (docs/architecture.md, "Fair dequeuing"). */
import { jobsAheadInRoundRobin, type GenerationJobPayload, type OtherGroup } from '@promptpix/core';

export interface PendingJob {
  payload: GenerationJobPayload;
  group: string;
  /** Attempts that have finished (failed) so far. */
  attemptsMade: number;
  /** Set while the job holds its group's turn: taken from the ring and not yet started. */
  holdsTurn?: boolean;
}

/**
 * The waiting jobs in fair order, as the BullMQ adapter keeps them on Redis: retries whose backoff
 * is over first (BullMQ puts them straight back on its wait list), then the groups round robin,
 * each group's jobs in the order they came. A group whose job is taken rejoins the ring at the
 * back at once, or, for a consumer that holds the turn until started, once that job starts (its
 * backend admitted it) or ends. A job deferred for a full backend keeps its group out of the ring
 * until it comes back, first in its group.
 */
export function createFairWaitingLine() {
  const retries: PendingJob[] = [];
  const lines = new Map<string, PendingJob[]>();
  /** Groups with jobs waiting and no job holding their turn, in turn order (a Set keeps insertion order). */
  const ring = new Set<string>();
  let size = 0;

  const lineOf = (group: string) => {
    let line = lines.get(group);
    if (!line) {
      line = [];
      lines.set(group, line);
    }
    return line;
  };
  /** Groups whose taken or deferred job holds their turn. */
  const turnTaken = new Set<string>();
  /** The group takes its next turn at the back of the ring, if it has a job waiting; else it is forgotten. */
  const rejoin = (group: string) => {
    turnTaken.delete(group);
    ring.delete(group);
    if ((lines.get(group)?.length ?? 0) > 0) ring.add(group);
    else lines.delete(group);
  };

  return {
    get size() {
      return size;
    },
    add(job: PendingJob) {
      size++;
      lineOf(job.group).push(job);
      if (!turnTaken.has(job.group)) ring.add(job.group);
    },
    addRetry(job: PendingJob) {
      size++;
      retries.push(job);
    },
    /** The next job to run, taken out of the line; `holdTurn`: its group waits until it starts or ends. */
    take(holdTurn: boolean): PendingJob | undefined {
      if (size === 0) return undefined;
      const retry = retries.shift();
      if (retry) {
        size--;
        return retry;
      }
      const group = ring.values().next().value;
      if (group === undefined) return undefined;
      const job = lines.get(group)!.shift()!;
      size--;
      ring.delete(group);
      turnTaken.add(group);
      job.holdsTurn = true;
      if (!holdTurn) this.started(job);
      return job;
    },
    /** The job holds its slot now (or ended): its group's next job may be taken. */
    started(job: PendingJob) {
      if (!job.holdsTurn) return;
      job.holdsTurn = false;
      rejoin(job.group);
    },
    /** A deferred job's delay is over: a retry waits again with the retries, a group's job first in its group. */
    returnDeferred(job: PendingJob) {
      if (!job.holdsTurn) return this.addRetry(job);
      job.holdsTurn = false;
      size++;
      lineOf(job.group).unshift(job);
      rejoin(job.group);
    },
    position(jobId: string): number | null {
      const retry = retries.findIndex((job) => job.payload.jobId === jobId);
      if (retry >= 0) return retry;
      // Turn order: the ring, then the groups whose turn is taken (they rejoin at the back).
      const order = [...ring, ...[...lines.keys()].filter((group) => !ring.has(group))];
      const own = order.findIndex((group) => lines.get(group)!.some((job) => job.payload.jobId === jobId));
      if (own < 0) return null;
      const index = lines.get(order[own])!.findIndex((job) => job.payload.jobId === jobId);
      const others: OtherGroup[] = order.flatMap((group, i) => (i === own ? [] : [{ waiting: lines.get(group)!.length, turnBefore: i < own }]));
      return retries.length + jobsAheadInRoundRobin(index, others);
    },
    remove(jobId: string): boolean {
      const retry = retries.findIndex((job) => job.payload.jobId === jobId);
      if (retry >= 0) {
        retries.splice(retry, 1);
        size--;
        return true;
      }
      for (const [group, jobs] of lines) {
        const index = jobs.findIndex((job) => job.payload.jobId === jobId);
        if (index < 0) continue;
        jobs.splice(index, 1);
        size--;
        // A group whose first job leaves loses its place in the round, as on BullMQ, where its
        // next job joins the back of the wait list.
        if (ring.has(group) && (index === 0 || jobs.length === 0)) rejoin(group);
        return true;
      }
      return false;
    },
    groups() {
      let waiting = 0;
      let largest = 0;
      for (const jobs of lines.values()) {
        if (jobs.length > 0) waiting++;
        largest = Math.max(largest, jobs.length);
      }
      return { groupsWaiting: waiting, largestGroupBacklog: largest };
    },
  };
}
