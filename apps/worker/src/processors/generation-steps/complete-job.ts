import type { EventRecorder, JobAttempt, JobRecord, JobStore, Storage } from '@promptpix/core';
import type { Logger } from '@promptpix/runtime';
import type { RoutedCall } from '../model-routing';
import type { Made } from './render';

/** Which model made a job's image, on its record: the one it named, or the fallback that stood in. */
const servedBy = (routed: Pick<RoutedCall, 'id' | 'fallbackFrom'> | undefined): Partial<JobRecord> =>
  routed ? { model: routed.id, ...(routed.fallbackFrom && { fallbackFrom: routed.fallbackFrom }) } : {};

export interface CompleteJobInput {
  jobStore: Pick<JobStore, 'update'>;
  storage: Pick<Storage, 'publicUrl'>;
  events: EventRecorder;
  /** The closing steps: after "completed", or when a cancel won the race. */
  afterCompleted(job: JobRecord): Promise<void>;
  discardImageOf(job: JobRecord, imageId: string): Promise<void>;
  logger: Logger;
  now: () => Date;
}

/** Completes a job whose image is stored, then its closing steps, usage events and log line. */
export async function completeJob(d: CompleteJobInput, job: JobRecord, attempt: JobAttempt, imageId: string, made: Made & { started: Date }): Promise<void> {
  const { jobId, request } = job;
  const { encoded, seed, routed, sourceImageId, character, started, revisedPrompt } = made;
  const completedAt = d.now();
  // Only a job still processing completes: a cancel that won the race keeps it cancelled.
  const completed = await d.jobStore.update(
    jobId,
    {
      status: 'completed',
      imageId,
      imageUrl: d.storage.publicUrl(encoded.key),
      completedAt: completedAt.toISOString(),
      seed,
      ...servedBy(routed),
      ...(revisedPrompt !== undefined && { revisedPrompt }),
    },
    { ifStatus: ['processing'] },
  );
  if (!completed) {
    await d.discardImageOf(job, imageId);
    return;
  }
  await d.afterCompleted(job);
  if (!sourceImageId) {
    const reference = character?.prepared && {
      referenceFamily: character.prepared.family,
      referenceReused: character.prepared.reused,
      referenceMs: character.prepared.ms,
    };
    d.events.record({
      accountId: job.accountId,
      eventType: 'generate',
      imageId,
      metadata: {
        jobId,
        model: routed?.id,
        ...(routed?.fallbackFrom && { fallbackFrom: routed.fallbackFrom }),
        ms: completedAt.getTime() - started.getTime(),
        ...reference,
      },
    });
    if (request.style) d.events.record({ accountId: job.accountId, eventType: 'style_applied', imageId, metadata: { style: request.style } });
  }
  d.logger.info('generation completed', { jobId, imageId, attempt: attempt.attempt, ms: completedAt.getTime() - started.getTime() });
}
