import { AppError, type JobRecord, type JobStore } from '@promptpix/core';

const POLL_MS = 100;

/** Polls the job store until the job finishes, the deadline passes or the caller goes away. */
async function waitForJob(jobStore: JobStore, jobId: string, waitMs: number, gone: () => boolean): Promise<JobRecord | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const job = await jobStore.get(jobId);
    if (!job || job.status === 'completed' || job.status === 'failed') return job;
    if (Date.now() + POLL_MS > deadline || gone()) return job;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export type FinishedJob = JobRecord & { imageUrl: string; imageId: string };

/**
 * The render wait (DECISIONS, RENDER_WAIT_MS): holds a request until its job has an image. A failed
 * job is a 502 with its reason; one still running at the deadline a 503 with Retry-After and the jobId.
 */
export async function holdForImage(jobStore: JobStore, job: JobRecord, waitMs: number, gone: () => boolean): Promise<FinishedJob> {
  const done = job.status === 'completed' ? job : await waitForJob(jobStore, job.jobId, waitMs, gone);
  if (done?.status === 'completed' && done.imageUrl && done.imageId) return done as FinishedJob;
  if (done?.status === 'failed') throw new AppError('upstream_failed', done.error ?? 'Image generation failed', { jobId: done.jobId });
  throw new AppError('unavailable', 'The image is still being generated; retry shortly', { jobId: job.jobId }, { 'Retry-After': '5' });
}
