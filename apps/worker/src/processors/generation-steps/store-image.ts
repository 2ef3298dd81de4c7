import { type InvalidationBus, inputKeyOf, type JobRecord, type JobStore, normalizePrompt, type Storage } from '@promptpix/core';
import type { ImageRepository, PermalinkRepository } from '@promptpix/db';
import type { Made } from './render';

export interface StoreImageInput {
  storage: Pick<Storage, 'put'>;
  jobStore: Pick<JobStore, 'get'>;
  images: Pick<ImageRepository, 'save'>;
  /** Adds a regenerated image to the permalinks its job names (`addToPermalinks`). */
  permalinks: Pick<PermalinkRepository, 'addImageToMany'>;
  invalidation: Pick<InvalidationBus, 'publish'>;
  /** The default model's id: its images are cached under no model. */
  defaultModelId: string;
}

/**
 * Uploads the image (content-addressed) and saves its Image record, then adds it to the job's
 * permalinks. False, with no record, when the job was cancelled while the image was being made.
 */
export async function storeImage(d: StoreImageInput, job: JobRecord, signal: AbortSignal, imageId: string, made: Made): Promise<boolean> {
  const { jobId, request } = job;
  const { encoded, seed, routed, sourceImageId, revisedPrompt } = made;
  await d.storage.put(encoded.key, encoded.data, encoded.contentType);
  // Cancelled while the image was being made: no record, so a cancelled job leaves nothing in the cache.
  if (signal.aborted || (await d.jobStore.get(jobId))?.status !== 'processing') return false;
  await d.images.save({
    id: imageId,
    accountId: job.accountId,
    prompt: request.prompt,
    normalizedPrompt: normalizePrompt(request.prompt),
    style: request.style ?? null,
    strength: request.strength,
    characterId: request.character ?? null,
    ageBucket: request.ageBucket ?? null,
    width: request.width,
    height: request.height,
    format: request.format,
    seed,
    negativePrompt: request.negativePrompt ?? null,
    // Cached under the model that made it: a fallback's image never answers for the model it stood in for.
    model: routed ? (routed.id === d.defaultModelId ? null : routed.id) : (request.model ?? null),
    // An edit's or a background's part of the cache key: the same edit again finds this image, a plain
    // prompt never does. An upscaled copy is stored under its source's.
    inputKey: job.upscale ? job.upscale.inputKey : inputKeyOf(request),
    revisedPrompt: revisedPrompt ?? null,
    storageKey: encoded.key,
    bytes: encoded.data.length,
    sourceImageId,
    jobId,
  });
  // Before the job reads completed, so whoever sees it completed finds the image in its permalinks.
  if (job.addToPermalinks && job.addToPermalinks.length > 0) {
    await d.permalinks.addImageToMany(job.accountId, job.addToPermalinks, imageId);
    await d.invalidation.publish({ kind: 'permalinks', accountId: job.accountId });
  }
  return true;
}
