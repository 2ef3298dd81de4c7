import { CANCELLED, JobHandedBackError, type JobRecord, PermanentJobError, type Storage } from '@promptpix/core';
import { encodeImage, loadSharp, PermanentModelError, resampleUpscale } from '@promptpix/models';
import type { Logger } from '@promptpix/runtime';
import type { RoutedCall } from '../model-routing';
import type { Made } from './render';

/** What the upscale step reads of the source image. */
export interface UpscaleSourceRow {
  id: string;
  accountId: string;
  storageKey: string;
  seed: bigint;
  width: number;
  height: number;
}

/** A job's `error` when the image it upscales (its record or its file) is no longer there. */
export const UPSCALE_SOURCE_GONE = 'The image to upscale is gone';

export interface UpscaleInput {
  images: { findById(id: string): PromiseLike<UpscaleSourceRow | null> };
  storage: Pick<Storage, 'get'>;
  logger: Logger;
}

/**
 * An upscale job (POST /api/v1/image/:id/upscale): the source image of the job's own account,
 * made `factor` times larger by the routed model's upscaler when `call` has one, else resampled,
 * then encoded at exactly the size and format asked for (alpha kept for PNG and WebP).
 */
export async function upscaleImage(
  d: UpscaleInput,
  job: JobRecord,
  call: RoutedCall | undefined,
  seed: number,
  signal: AbortSignal,
  handBack: AbortSignal | undefined,
): Promise<Made> {
  const { request } = job;
  const source = await d.images.findById(job.deriveFrom!);
  if (!source || source.accountId !== job.accountId) throw new PermanentJobError(UPSCALE_SOURCE_GONE);
  const bytes = await d.storage.get(source.storageKey);
  if (!bytes) throw new PermanentJobError(UPSCALE_SOURCE_GONE);
  let larger: Buffer;
  if (call?.upscale) {
    const png = await loadSharp()(bytes, { failOn: 'error' }).png().toBuffer();
    try {
      const made = await call.upscale(
        { image: png, width: source.width, height: source.height, factor: job.upscale!.factor, seed },
        handBack ? AbortSignal.any([signal, handBack]) : signal,
      );
      larger = made.data;
    } catch (error) {
      if (signal.aborted) throw new PermanentJobError(CANCELLED);
      if (handBack?.aborted) throw new JobHandedBackError();
      if (error instanceof PermanentModelError) throw new PermanentJobError(`Image generation failed: ${error.message}`);
      throw error;
    }
  } else {
    call?.release();
    larger = (await resampleUpscale(bytes, job.upscale!.factor)).data;
  }
  const encoded = await encodeImage(larger, request);
  d.logger.info('image upscaled', { jobId: job.jobId, sourceImageId: source.id, factor: job.upscale!.factor, by: call?.upscale ? call.id : 'resampler' });
  // Stored under the source's model (its cache key), whichever backend upscaled it.
  return { encoded, seed: Number(source.seed), routed: undefined, sourceImageId: source.id, character: undefined };
}
