import type { JobView } from '@promptpix/contracts';
import type { JobRecord } from './ports/job-store';

/** The job as callers see it (GET /api/v1/job/:jobId, webhooks): a field appears only once it has a value. */
export function toJobView(job: JobRecord): JobView {
  const view: JobView = { jobId: job.jobId, status: job.status, createdAt: job.createdAt };
  if (job.status === 'completed') {
    view.imageUrl = job.imageUrl;
    view.imageId = job.imageId;
    if (job.seed !== undefined) view.seed = job.seed;
    if (job.revisedPrompt !== undefined) view.revisedPrompt = job.revisedPrompt;
  }
  if (job.status === 'failed' && job.error) view.error = job.error;
  if (job.completedAt) view.completedAt = job.completedAt;
  return view;
}
