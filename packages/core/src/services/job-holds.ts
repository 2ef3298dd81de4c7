import type { ActiveJobs, SingleFlight } from '../ports/coordination';
import type { JobRecord } from '../ports/job-store';

/**
 * Gives back what a job holds while in flight: its single-flight key (so an identical request
 * starts a new generation) and its key's slot under the cap on jobs in progress. Called when a
 * job completes, fails, is cancelled, or could not be queued.
 */
export async function releaseJobHolds(
  d: { singleFlight: SingleFlight; activeJobs: ActiveJobs },
  job: Pick<JobRecord, 'jobId' | 'flightKey' | 'activeSlot'>,
): Promise<void> {
  if (job.flightKey) await d.singleFlight.release(job.flightKey, job.jobId);
  if (job.activeSlot) await d.activeJobs.release(job.activeSlot, job.jobId);
}
