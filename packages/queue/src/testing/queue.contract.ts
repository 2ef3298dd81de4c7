/**
 * Behaviour every GenerationQueue adapter must show. `makeQueue` returns a fresh, empty queue
 * per test; the contract closes it.
 */
import { JobDeferredError, PermanentJobError, type GenerationJobPayload, type GenerationQueue, type JobAttempt } from '@promptpix/core';
import { deferred, sleep, waitFor } from './helpers';

export interface QueueFactoryOptions {
  attempts: number;
  backoffMs: number;
}

const BACKOFF_MS = 20;
/** How long to keep watching for a second run or a second failure report. */
const QUIET_MS = 300;

let counter = 0;
const payload = (label: string): GenerationJobPayload => ({ v: 1, jobId: `${label}-${process.pid}-${++counter}` });

export function describeQueueContract(name: string, makeQueue: (options: QueueFactoryOptions) => GenerationQueue | Promise<GenerationQueue>): void {
  describe(`GenerationQueue contract: ${name}`, () => {
    const open: GenerationQueue[] = [];
    const make = async (options: Partial<QueueFactoryOptions> = {}) => {
      const queue = await makeQueue({ attempts: 3, backoffMs: BACKOFF_MS, ...options });
      open.push(queue);
      return queue;
    };
    const noFinalFailure = async () => {
      throw new Error('onFinalFailure must not be called');
    };

    afterEach(async () => {
      await Promise.all(open.splice(0).map((q) => q.close()));
    });

    it('runs a job once with its payload and attempt number', async () => {
      const queue = await make();
      const calls: Array<[GenerationJobPayload, JobAttempt]> = [];
      const job = payload('once');
      await queue.enqueue(job);
      // The attempt's number and limit (an adapter that can hand jobs back adds its `handBack` signal).
      queue.consume(async (p, a) => void calls.push([p, { attempt: a.attempt, maxAttempts: a.maxAttempts }]), {
        concurrency: 1,
        onFinalFailure: noFinalFailure,
      });
      await waitFor(() => calls.length === 1, 'the job to run');
      await sleep(QUIET_MS);
      expect(calls).toEqual([[job, { attempt: 1, maxAttempts: 3 }]]);
      await waitFor(async () => (await queue.depth()).active === 0, 'the job to leave active');
      expect(await queue.depth()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, groupsWaiting: 0, largestGroupBacklog: 0 });
    });

    it('retries with exponential backoff, then succeeds', async () => {
      const queue = await make({ attempts: 3 });
      const seen: Array<{ attempt: number; at: number }> = [];
      const onFinalFailure = jest.fn(async () => undefined);
      queue.consume(
        async (_p, { attempt }) => {
          seen.push({ attempt, at: Date.now() });
          if (attempt < 3) throw new Error(`transient ${attempt}`);
        },
        { concurrency: 1, onFinalFailure },
      );
      await queue.enqueue(payload('retry'));
      await waitFor(() => seen.length === 3, 'three attempts');
      await sleep(QUIET_MS);
      expect(seen.map((s) => s.attempt)).toEqual([1, 2, 3]);
      // backoffMs * 2^(attempt-1): 20 ms, then 40 ms (a little slack for timer granularity)
      expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(BACKOFF_MS - 5);
      expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(2 * BACKOFF_MS - 5);
      expect(onFinalFailure).not.toHaveBeenCalled();
    });

    it('reports a final failure once, with the last error, when attempts run out', async () => {
      const queue = await make({ attempts: 3 });
      const attempts: number[] = [];
      const failures: Array<[GenerationJobPayload, Error]> = [];
      const job = payload('exhaust');
      queue.consume(
        async (_p, { attempt }) => {
          attempts.push(attempt);
          throw new Error(`boom ${attempt}`);
        },
        { concurrency: 1, onFinalFailure: async (p, e) => void failures.push([p, e]) },
      );
      await queue.enqueue(job);
      await waitFor(() => failures.length === 1, 'the final failure');
      await sleep(QUIET_MS);
      expect(attempts).toEqual([1, 2, 3]);
      expect(failures).toHaveLength(1);
      expect(failures[0][0]).toEqual(job);
      expect(failures[0][1]).toBeInstanceOf(Error);
      expect(failures[0][1].message).toBe('boom 3');
      await waitFor(async () => (await queue.depth()).failed === 1, 'the job to count as failed');
    });

    it('does not retry a PermanentJobError', async () => {
      const queue = await make({ attempts: 3 });
      const handler = jest.fn(async () => {
        throw new PermanentJobError('record is gone');
      });
      const failures: Error[] = [];
      queue.consume(handler, { concurrency: 1, onFinalFailure: async (_p, e) => void failures.push(e) });
      await queue.enqueue(payload('permanent'));
      await waitFor(() => failures.length === 1, 'the final failure');
      await sleep(QUIET_MS);
      expect(handler).toHaveBeenCalledTimes(1);
      expect(failures).toHaveLength(1);
      expect(failures[0].name).toBe('PermanentJobError');
      expect(failures[0].message).toBe('record is gone');
    });

    it('lists failed jobs for operators and retries one with fresh attempts', async () => {
      const queue = await make({ attempts: 2 });
      let healthy = false;
      const runs: number[] = [];
      const failures: string[] = [];
      queue.consume(
        async (_p, { attempt }) => {
          runs.push(attempt);
          if (!healthy) throw new Error('provider down');
        },
        { concurrency: 1, onFinalFailure: async (p) => void failures.push(p.jobId) },
      );
      const job = payload('operator-retry');
      await queue.enqueue(job);
      await waitFor(() => failures.length === 1, 'the final failure');
      await waitFor(async () => (await queue.listFailed(10)).length === 1, 'the failed job to be listed');
      const [listed] = await queue.listFailed(10);
      expect(listed).toMatchObject({ jobId: job.jobId, error: 'provider down', attemptsMade: 2 });
      expect(await queue.retryFailed('no-such-job')).toBe(false);

      healthy = true;
      expect(await queue.retryFailed(job.jobId)).toBe(true);
      await waitFor(() => runs.length === 3, 'the retried run');
      expect(runs).toEqual([1, 2, 1]);
      await waitFor(async () => (await queue.listFailed(10)).length === 0, 'the failed list to empty');
      expect(failures).toHaveLength(1);
    });

    it('keeps going when onFinalFailure itself throws', async () => {
      const queue = await make({ attempts: 1 });
      const ran: string[] = [];
      queue.consume(
        async (p) => {
          ran.push(p.jobId);
          if (p.jobId.startsWith('bad')) throw new Error('fails');
        },
        {
          concurrency: 1,
          onFinalFailure: async () => {
            throw new Error('recording the failure failed');
          },
        },
      );
      const bad = payload('bad');
      const good = payload('good');
      await queue.enqueue(bad);
      await queue.enqueue(good);
      await waitFor(() => ran.length === 2, 'both jobs');
      expect(ran).toEqual([bad.jobId, good.jobId]);
    });

    it('never runs more than `concurrency` handlers at once', async () => {
      const queue = await make();
      let running = 0;
      let peak = 0;
      let done = 0;
      queue.consume(
        async () => {
          running++;
          peak = Math.max(peak, running);
          await sleep(150);
          running--;
          done++;
        },
        { concurrency: 2, onFinalFailure: noFinalFailure },
      );
      for (let i = 0; i < 6; i++) await queue.enqueue(payload('conc'));
      await waitFor(() => done === 6, 'six jobs');
      expect(peak).toBe(2);
    });

    it('runs a job enqueued twice (or while it runs) only once', async () => {
      const queue = await make();
      const job = payload('dup');
      const gate = deferred();
      const handler = jest.fn(async () => gate.promise);
      await queue.enqueue(job);
      await queue.enqueue({ ...job });
      queue.consume(handler, { concurrency: 4, onFinalFailure: noFinalFailure });
      await waitFor(() => handler.mock.calls.length === 1, 'the job to start');
      await queue.enqueue({ ...job });
      gate.resolve();
      await sleep(QUIET_MS);
      expect(handler).toHaveBeenCalledTimes(1);
    });

    it('close() waits for the handler in flight', async () => {
      const queue = await make();
      const started = deferred();
      let finishedAt = 0;
      const consumer = queue.consume(
        async () => {
          started.resolve();
          await sleep(250);
          finishedAt = Date.now();
        },
        { concurrency: 1, onFinalFailure: noFinalFailure },
      );
      await queue.enqueue(payload('close'));
      await started.promise;
      await consumer.close();
      const closedAt = Date.now();
      expect(finishedAt).toBeGreaterThan(0);
      expect(closedAt).toBeGreaterThanOrEqual(finishedAt);
    });

    it('keeps jobs enqueued before any consumer and runs them once one starts', async () => {
      const queue = await make();
      const jobs = [payload('early'), payload('early'), payload('early')];
      for (const job of jobs) await queue.enqueue(job);
      await sleep(50);
      expect(await queue.depth()).toEqual({ waiting: 3, active: 0, delayed: 0, failed: 0, groupsWaiting: 1, largestGroupBacklog: 3 });
      const ran: string[] = [];
      queue.consume(async (p) => void ran.push(p.jobId), { concurrency: 1, onFinalFailure: noFinalFailure });
      await waitFor(() => ran.length === 3, 'the early jobs');
      expect(ran.sort()).toEqual(jobs.map((j) => j.jobId).sort());
      expect((await queue.depth()).waiting).toBe(0);
    });

    it('tells how many jobs wait ahead of a waiting job, and null for a job that is not waiting', async () => {
      const queue = await make();
      const jobs = [payload('pos'), payload('pos'), payload('pos')];
      for (const job of jobs) await queue.enqueue(job);
      const positions = () => Promise.all(jobs.map((job) => queue.position(job.jobId)));
      expect(await positions()).toEqual([0, 1, 2]);
      expect(await queue.position('no-such-job')).toBeNull();

      const gate = deferred();
      const started: string[] = [];
      let done = 0;
      queue.consume(
        async (p) => {
          started.push(p.jobId);
          await gate.promise;
          done++;
        },
        { concurrency: 1, onFinalFailure: noFinalFailure },
      );
      await waitFor(() => started.length === 1, 'the first job to start');
      expect(started).toEqual([jobs[0].jobId]);
      expect(await positions()).toEqual([null, 0, 1]);
      gate.resolve();
      await waitFor(() => done === 3, 'every job');
      expect(await positions()).toEqual([null, null, null]);
    });

    it('removes a waiting job, but not a running or unknown one', async () => {
      const queue = await make();
      const jobs = [payload('rm'), payload('rm'), payload('rm')];
      for (const job of jobs) await queue.enqueue(job);
      expect(await queue.remove(jobs[1].jobId)).toBe(true);
      expect(await queue.remove(jobs[1].jobId)).toBe(false);
      expect(await queue.remove('no-such-job')).toBe(false);
      expect((await queue.depth()).waiting).toBe(2);

      const gate = deferred();
      const started: string[] = [];
      queue.consume(
        async (p) => {
          started.push(p.jobId);
          await gate.promise;
        },
        { concurrency: 1, onFinalFailure: noFinalFailure },
      );
      await waitFor(() => started.length === 1, 'the first job to start');
      expect(await queue.remove(jobs[0].jobId)).toBe(false);
      gate.resolve();
      await waitFor(() => started.length === 2, 'the last job to start');
      expect(started).toEqual([jobs[0].jobId, jobs[2].jobId]);
    });

    describe('fair dequeuing between groups', () => {
      /** Enqueues `count` jobs of one group, in order. */
      const enqueueGroup = async (queue: GenerationQueue, group: string, count: number) => {
        const jobs = Array.from({ length: count }, () => payload(group));
        for (const job of jobs) await queue.enqueue(job, { group });
        return jobs;
      };
      const idsOf = (jobs: GenerationJobPayload[]) => jobs.map((job) => job.jobId);

      it('takes the groups in turn, each group first in first out, and says where each job stands', async () => {
        const queue = await make();
        const a = await enqueueGroup(queue, 'acct-a', 6);
        const b = await enqueueGroup(queue, 'acct-b', 2);
        const c = await enqueueGroup(queue, 'acct-c', 1);
        const fairOrder = [a[0], b[0], c[0], a[1], b[1], a[2], a[3], a[4], a[5]];
        expect(await Promise.all(fairOrder.map((job) => queue.position(job.jobId)))).toEqual(fairOrder.map((_job, index) => index));
        expect(await queue.depth()).toEqual({ waiting: 9, active: 0, delayed: 0, failed: 0, groupsWaiting: 3, largestGroupBacklog: 6 });

        const ran: string[] = [];
        queue.consume(async (p) => void ran.push(p.jobId), { concurrency: 1, onFinalFailure: noFinalFailure });
        await waitFor(() => ran.length === 9, 'every job');
        expect(ran).toEqual(idsOf(fairOrder));
        await waitFor(async () => (await queue.depth()).active === 0, 'the last job to leave active');
        expect(await queue.depth()).toMatchObject({ waiting: 0, groupsWaiting: 0, largestGroupBacklog: 0 });
      });

      it('puts a newcomer one turn behind a flooding group, not behind its backlog', async () => {
        const queue = await make();
        const flood = await enqueueGroup(queue, 'flood', 40);
        const gate = deferred();
        const ran: string[] = [];
        queue.consume(
          async (p) => {
            ran.push(p.jobId);
            if (ran.length === 1) await gate.promise;
          },
          { concurrency: 1, onFinalFailure: noFinalFailure },
        );
        await waitFor(() => ran.length === 1, 'the first flood job to start');
        const [newcomer] = await enqueueGroup(queue, 'newcomer', 1);
        const newcomerPosition = await queue.position(newcomer.jobId);
        const positions = await Promise.all([queue.position(flood[1].jobId), queue.position(flood[20].jobId)]);
        gate.resolve();
        expect(positions).toEqual([0, 20]);
        await waitFor(() => ran.length === 41, 'every job');
        expect(newcomerPosition).toBe(1);
        expect(ran.slice(0, 3)).toEqual([flood[0].jobId, flood[1].jobId, newcomer.jobId]);
        expect(ran.filter((id) => id !== newcomer.jobId)).toEqual(idsOf(flood));
      });

      it('gives a group alone every slot', async () => {
        const queue = await make();
        await enqueueGroup(queue, 'alone', 8);
        const gate = deferred();
        let running = 0;
        let peak = 0;
        let done = 0;
        queue.consume(
          async () => {
            running++;
            peak = Math.max(peak, running);
            await gate.promise;
            running--;
            done++;
          },
          { concurrency: 4, onFinalFailure: noFinalFailure },
        );
        await waitFor(() => running === 4, 'four jobs of the one group at once');
        gate.resolve();
        await waitFor(() => done === 8, 'every job');
        expect(peak).toBe(4);
      });

      it('removes a parked job or a group head, and the group keeps its order', async () => {
        const queue = await make();
        const a = await enqueueGroup(queue, 'rm-a', 4);
        const b = await enqueueGroup(queue, 'rm-b', 1);
        expect(await queue.remove(a[2].jobId)).toBe(true);
        expect(await queue.remove(a[0].jobId)).toBe(true);
        expect(await queue.remove(a[0].jobId)).toBe(false);
        expect(await queue.depth()).toMatchObject({ waiting: 3, groupsWaiting: 2, largestGroupBacklog: 2 });
        const ran: string[] = [];
        queue.consume(async (p) => void ran.push(p.jobId), { concurrency: 1, onFinalFailure: noFinalFailure });
        await waitFor(() => ran.length === 3, 'the jobs left');
        expect(ran).toEqual([b[0].jobId, a[1].jobId, a[3].jobId]);
      });

      it('runs a parked job enqueued twice only once', async () => {
        const queue = await make();
        const [, parked] = await enqueueGroup(queue, 'dup-group', 2);
        await queue.enqueue({ ...parked }, { group: 'dup-group' });
        await queue.enqueue({ ...parked }, { group: 'another-group' });
        expect(await queue.depth()).toMatchObject({ waiting: 2, groupsWaiting: 1 });
        const ran: string[] = [];
        queue.consume(async (p) => void ran.push(p.jobId), { concurrency: 2, onFinalFailure: noFinalFailure });
        await waitFor(() => ran.length === 2, 'both jobs');
        await sleep(QUIET_MS);
        expect(ran.filter((id) => id === parked.jobId)).toHaveLength(1);
      });
    });

    it('refuses work after close()', async () => {
      const queue = await make();
      await queue.close();
      await expect(queue.enqueue(payload('closed'))).rejects.toThrow();
    });

    /** A handler that throws JobDeferredError: its model backend is busy, the job waits in the queue (not in a worker slot). */
    describe('deferral', () => {
      const DEFER_MS = 250;

      it('puts a deferred job back for its delay: the slot runs other jobs meanwhile, the job comes back with the same attempt number', async () => {
        const queue = await make({ attempts: 3 });
        const deferred = payload('deferred');
        const other = payload('other');
        const runs: Array<{ jobId: string; attempt: number; at: number }> = [];
        let deferrals = 0;
        queue.consume(
          async (p, { attempt }) => {
            runs.push({ jobId: p.jobId, attempt, at: Date.now() });
            if (p.jobId === deferred.jobId && deferrals++ < 2) throw new JobDeferredError(DEFER_MS);
          },
          { concurrency: 1, onFinalFailure: noFinalFailure },
        );
        await queue.enqueue(deferred, { group: 'full-backend' });
        await queue.enqueue(other, { group: 'another-account' });
        await waitFor(() => runs.length === 4, 'the deferred job to run three times and the other once');
        await sleep(QUIET_MS);
        expect(runs.map((r) => [r.jobId, r.attempt])).toEqual([
          [deferred.jobId, 1],
          [other.jobId, 1],
          [deferred.jobId, 1],
          [deferred.jobId, 1],
        ]);
        // The one slot ran the other job at once, not after the deferral's delay.
        expect(runs[1].at - runs[0].at).toBeLessThan(DEFER_MS);
        expect(runs[2].at - runs[0].at).toBeGreaterThanOrEqual(DEFER_MS - 5);
        expect(runs[3].at - runs[2].at).toBeGreaterThanOrEqual(DEFER_MS - 5);
        await waitFor(async () => (await queue.depth()).active === 0, 'the job to leave active');
        expect(await queue.depth()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, groupsWaiting: 0, largestGroupBacklog: 0 });
      });

      it("holds its group's turn while deferred: the group's later jobs wait behind it, other groups go on", async () => {
        const queue = await make();
        const slow = [payload('slow'), payload('slow'), payload('slow')];
        const other = [payload('other'), payload('other')];
        for (const job of slow) await queue.enqueue(job, { group: 'slow-group' });
        for (const job of other) await queue.enqueue(job, { group: 'other-group' });
        const taken: string[] = [];
        let deferrals = 0;
        queue.consume(
          async (p) => {
            taken.push(p.jobId);
            if (p.jobId === slow[0].jobId && deferrals++ < 2) throw new JobDeferredError(DEFER_MS);
          },
          { concurrency: 2, onFinalFailure: noFinalFailure, holdTurnUntilStarted: true },
        );
        await waitFor(() => taken.length === 7, 'every job, the first slow one three times');
        await sleep(QUIET_MS);
        // The slow group's other jobs were never taken while its first job waited: no cycling.
        const slowTakes = taken.filter((id) => id.startsWith('slow'));
        expect(slowTakes).toEqual([slow[0].jobId, slow[0].jobId, slow[0].jobId, slow[1].jobId, slow[2].jobId]);
        // The other group ran meanwhile, before the slow job's delays were over.
        expect(taken.indexOf(other[1].jobId)).toBeLessThan(taken.lastIndexOf(slow[0].jobId));
        await waitFor(async () => (await queue.depth()).active === 0, 'the last job to leave active');
        expect(await queue.depth()).toMatchObject({ waiting: 0, delayed: 0, groupsWaiting: 0 });
      });

      it('still gives a group alone every slot when its jobs hold the turn until they start', async () => {
        const queue = await make();
        for (let i = 0; i < 6; i++) await queue.enqueue(payload('held'), { group: 'alone' });
        const gate = deferred();
        let running = 0;
        let done = 0;
        queue.consume(
          async (_p, { started }) => {
            started?.();
            running++;
            await gate.promise;
            running--;
            done++;
          },
          { concurrency: 3, onFinalFailure: noFinalFailure, holdTurnUntilStarted: true },
        );
        await waitFor(() => running === 3, 'three jobs of the one group at once');
        gate.resolve();
        await waitFor(() => done === 6, 'every job');
      });

      it('spends no attempt: a job deferred more often than its attempts still gets all of them, and one final failure', async () => {
        const queue = await make({ attempts: 2 });
        const attempts: number[] = [];
        const failures: Error[] = [];
        let deferrals = 0;
        queue.consume(
          async (_p, { attempt }) => {
            attempts.push(attempt);
            if (deferrals < 3) {
              deferrals++;
              throw new JobDeferredError(20);
            }
            throw new Error(`backend failed on attempt ${attempt}`);
          },
          { concurrency: 1, onFinalFailure: async (_p, e) => void failures.push(e) },
        );
        await queue.enqueue(payload('deferred-then-failing'));
        await waitFor(() => failures.length === 1, 'the final failure');
        await sleep(QUIET_MS);
        expect(attempts).toEqual([1, 1, 1, 1, 2]);
        expect(failures.map((e) => e.message)).toEqual(['backend failed on attempt 2']);
      });

      it('a deferred job waits as delayed, and can be removed before it comes back', async () => {
        const queue = await make();
        const job = payload('deferred-removed');
        const runs: string[] = [];
        queue.consume(
          async (p) => {
            runs.push(p.jobId);
            throw new JobDeferredError(60_000);
          },
          { concurrency: 1, onFinalFailure: noFinalFailure },
        );
        await queue.enqueue(job);
        await waitFor(async () => (await queue.depth()).delayed === 1, 'the job to wait as delayed');
        expect(await queue.depth()).toMatchObject({ waiting: 0, delayed: 1, failed: 0 });
        expect(await queue.remove(job.jobId)).toBe(true);
        expect(await queue.depth()).toMatchObject({ waiting: 0, delayed: 0 });
        expect(runs).toEqual([job.jobId]);
      });
    });
  });
}
