import { type ActiveJobs, type InvalidationBus, type JobRecord, releaseJobHolds, type SingleFlight, type WebhookNotifier } from '@promptpix/core';
import type { ImageRepository } from '@promptpix/db';

export interface ReleaseAndNotifyInput {
  singleFlight: SingleFlight;
  activeJobs: ActiveJobs;
  webhooks: Pick<WebhookNotifier, 'jobFinished'>;
}

/** A job that ended (completed or failed): free its holds, then tell its webhooks. */
export async function releaseAndNotify(d: ReleaseAndNotifyInput, job: JobRecord): Promise<void> {
  await releaseJobHolds(d, job);
  await d.webhooks.jobFinished(job.jobId);
}

export interface AfterCompletedInput extends ReleaseAndNotifyInput {
  invalidation: Pick<InvalidationBus, 'publish'>;
}

/** What follows "completed": free the job's holds, tell its webhooks, evict cached image lists. */
export async function afterCompleted(d: AfterCompletedInput, job: JobRecord): Promise<void> {
  await releaseAndNotify(d, job);
  await d.invalidation.publish({ kind: 'images', accountId: job.accountId });
}

export interface DiscardImageInput {
  images: Pick<ImageRepository, 'deleteUnfinished'>;
  invalidation: Pick<InvalidationBus, 'publish'>;
}

/**
 * A job cancelled after its image was saved (the cancel landed between the last check and
 * "completed", or a crashed run saved it): the record goes, with its permalink entries, so the
 * cancelled job is not served from the cache. The content-addressed file stays; files are shared.
 */
export async function discardImageOf(d: DiscardImageInput, job: JobRecord, imageId: string): Promise<void> {
  if (!(await d.images.deleteUnfinished(imageId, job.jobId))) return;
  await d.invalidation.publish({ kind: 'images', accountId: job.accountId });
  if (job.addToPermalinks && job.addToPermalinks.length > 0) await d.invalidation.publish({ kind: 'permalinks', accountId: job.accountId });
}
