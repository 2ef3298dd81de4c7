/** The embedded queue's waiting jobs, kept in the fair order (docs/architecture.md, "Fair dequeuing"). */
import { jobsAheadInRoundRobin, type GenerationJobPayload, type OtherGroup } from '@promptpix/core';

export interface PendingJob {
  payload: GenerationJobPayload;
  group: string;
  /** Attempts that have finished (failed) so far. */
  attemptsMade: number;
}

/**
 * The waiting jobs in fair order: retries whose backoff is over first (as BullMQ puts them
 * straight back on its wait list), then the groups round robin, each group's jobs in the order
 * they came. The map's insertion order is the ring: a group that takes its turn moves to the end.
 */
export function createFairWaitingLine() {
  const retries: PendingJob[] = [];
  const ring = new Map<string, PendingJob[]>();
  let size = 0;
  return {
    get size() {
      return size;
    },
    add(job: PendingJob) {
      size++;
      const jobs = ring.get(job.group);
      if (jobs) jobs.push(job);
      else ring.set(job.group, [job]);
    },
    addRetry(job: PendingJob) {
      size++;
      retries.push(job);
    },
    /** The next job to run, taken out of the line. */
    take(): PendingJob | undefined {
      if (size === 0) return undefined;
      size--;
      if (retries.length > 0) return retries.shift();
      const first = ring.entries().next();
      if (first.done) return undefined;
      const [group, jobs] = first.value;
      const job = jobs.shift();
      ring.delete(group);
      if (jobs.length > 0) ring.set(group, jobs);
      return job;
    },
    position(jobId: string): number | null {
      const retry = retries.findIndex((job) => job.payload.jobId === jobId);
      if (retry >= 0) return retry;
      let turnBefore = true;
      const others: OtherGroup[] = [];
      let own: number | null = null;
      for (const jobs of ring.values()) {
        const index = jobs.findIndex((job) => job.payload.jobId === jobId);
        if (index >= 0) {
          own = index;
          turnBefore = false;
        } else others.push({ waiting: jobs.length, turnBefore });
      }
      return own === null ? null : retries.length + jobsAheadInRoundRobin(own, others);
    },
    remove(jobId: string): boolean {
      const retry = retries.findIndex((job) => job.payload.jobId === jobId);
      if (retry >= 0) {
        retries.splice(retry, 1);
        size--;
        return true;
      }
      for (const [group, jobs] of ring) {
        const index = jobs.findIndex((job) => job.payload.jobId === jobId);
        if (index < 0) continue;
        jobs.splice(index, 1);
        size--;
        // A group whose first job leaves loses its place in the round, as on BullMQ, where its
        // next job joins the back of the wait list.
        if (index === 0 || jobs.length === 0) ring.delete(group);
        if (jobs.length > 0 && index === 0) ring.set(group, jobs);
        return true;
      }
      return false;
    },
    groups() {
      let largest = 0;
      for (const jobs of ring.values()) largest = Math.max(largest, jobs.length);
      return { groupsWaiting: ring.size, largestGroupBacklog: largest };
    },
  };
}
