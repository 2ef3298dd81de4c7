import type { JobStore, RenderedImage } from '@promptpix/core';
import type { Logger } from '@promptpix/runtime';
import { createRenderedCache } from '../rendered-cache';

/** Rendered images kept in this process for a retry (besides the job store's copy), by bytes held. */
export const RENDERED_CACHE_BYTES = 64 * 1024 * 1024;

export interface KeptRendersInput {
  jobStore: Pick<JobStore, 'rendered' | 'keepRendered' | 'dropRendered'>;
  logger: Logger;
  now: () => Date;
}

/** What a model call made for a job whose later step failed: kept here and in the job store, so its retry skips the model. */
export function createKeptRenders(d: KeptRendersInput) {
  const renderedHere = createRenderedCache({ maxBytes: RENDERED_CACHE_BYTES, ttlMs: 3600_000, now: () => d.now().getTime() });

  /** The image a failed attempt of this job kept: from this process, else from the job store (another worker's attempt). */
  async function of(jobId: string): Promise<RenderedImage | null> {
    const here = renderedHere.get(jobId);
    if (here) return here;
    try {
      return await d.jobStore.rendered(jobId);
    } catch (error) {
      d.logger.warn('could not read the image a previous attempt kept; the model runs again', { jobId, error });
      return null;
    }
  }

  /** Keeps what the model made after a later step failed, here and beside the job's record; never throws (the step's own error is the attempt's). */
  async function keep(jobId: string, rendered: RenderedImage): Promise<void> {
    renderedHere.set(jobId, rendered);
    try {
      await d.jobStore.keepRendered(jobId, rendered);
    } catch (error) {
      d.logger.warn('could not keep the rendered image in the job store; kept in this worker only', { jobId, error });
    }
  }

  function forget(jobId: string): void {
    renderedHere.delete(jobId);
    d.jobStore.dropRendered(jobId).catch((error: unknown) => d.logger.warn('could not drop a kept rendered image (it expires with the job)', { jobId, error }));
  }

  return { of, keep, forget };
}

export type KeptRenders = ReturnType<typeof createKeptRenders>;
