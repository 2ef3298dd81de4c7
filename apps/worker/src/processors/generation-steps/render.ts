import { randomInt } from 'node:crypto';
import {
  CANCELLED,
  createProgressThrottle,
  editRefusal,
  type EditInput,
  type JobAttempt,
  JobHandedBackError,
  type JobRecord,
  type JobStore,
  type ModelRequest,
  PermanentJobError,
  type RenderedImage,
  type Storage,
} from '@promptpix/core';
import type { ImageRepository } from '@promptpix/db';
import { type EncodedImage, encodeImage, PermanentModelError } from '@promptpix/models';
import type { Logger } from '@promptpix/runtime';
import type { CharacterForScene } from '../character-references';
import type { RoutedCall } from '../model-routing';

/** Backend progress reaches the job store at most this often (the event stream reads it every 500 ms). */
export const PROGRESS_WRITE_MS = 500;

/** What the render step made, for the steps that store it and complete the job. */
export interface Made {
  encoded: RenderedImage | EncodedImage;
  seed: number;
  /** Which model made the image: this attempt's call, or the attempt whose image was kept. */
  routed: Pick<RoutedCall, 'id' | 'fallbackFrom'> | undefined;
  sourceImageId: string | null;
  character: CharacterForScene | undefined;
  /** What the model said it drew (ModelImage.revisedPrompt). */
  revisedPrompt?: string;
}

export interface StartRunInput {
  jobStore: Pick<JobStore, 'update'>;
  now: () => Date;
}

/**
 * Marks the job processing, with its seed: drawn once, by the first attempt, and kept on the
 * record, so a retry makes the same image. Null when the job left the status it was read in.
 */
export async function startRun(d: StartRunInput, job: JobRecord, kept: RenderedImage | null): Promise<{ started: Date; seed: number } | null> {
  const started = d.now();
  const seed = kept?.seed ?? job.request.seed ?? job.seed ?? randomInt(2 ** 32);
  // Only from the status read above (queued, a retry's processing, or an operator's retry of a
  // failed job): a cancel that landed since then is not overwritten.
  if (
    !(await d.jobStore.update(
      job.jobId,
      { status: 'processing', startedAt: job.startedAt ?? started.toISOString(), ...(!job.deriveFrom && { seed }) },
      { ifStatus: [job.status] },
    ))
  )
    return null;
  return { started, seed };
}

export interface ReuseKeptInput {
  logger: Logger;
}

/** A retry after a later step failed: the image a previous attempt made, no model call. */
export function reuseKept(d: ReuseKeptInput, job: JobRecord, attempt: JobAttempt, kept: RenderedImage, seed: number): Made {
  d.logger.info('generation retried with the image a previous attempt made: no model call', { jobId: job.jobId, attempt: attempt.attempt });
  return {
    encoded: kept,
    seed,
    routed: { id: kept.model, fallbackFrom: kept.fallbackFrom },
    sourceImageId: null,
    character: undefined,
    ...(kept.revisedPrompt !== undefined && { revisedPrompt: kept.revisedPrompt }),
  };
}

export interface DeriveInput {
  images: Pick<ImageRepository, 'findById'>;
  storage: Pick<Storage, 'get'>;
}

/** Another size/format of a cached image: re-encode the stored original, no model call. */
export async function deriveImage(d: DeriveInput, job: JobRecord): Promise<Made> {
  const source = await d.images.findById(job.deriveFrom!);
  const bytes = source && (await d.storage.get(source.storageKey));
  if (!source || !bytes) throw new PermanentJobError('The cached image to derive from is gone');
  const encoded = await encodeImage(bytes, job.request);
  // Another size of the same picture: what the model drew is the original's.
  return {
    encoded,
    seed: Number(source.seed),
    routed: undefined,
    sourceImageId: source.id,
    character: undefined,
    ...(source.revisedPrompt && { revisedPrompt: source.revisedPrompt }),
  };
}

/**
 * A provider's refusal that retrying cannot fix (a 4xx) ends the job at once. The breaker hears
 * how the call ended (../model-routing.ts); a cancel or a hand-back (a worker shutting down past its
 * grace period stops the call and hands the job back) tells it nothing about the backend.
 */
async function callModel(routed: RoutedCall, request: ModelRequest, signal: AbortSignal, handBack?: AbortSignal) {
  try {
    return await routed.generate(request, handBack ? AbortSignal.any([signal, handBack]) : signal);
  } catch (error) {
    if (signal.aborted) throw new PermanentJobError(CANCELLED);
    if (handBack?.aborted) throw new JobHandedBackError();
    if (error instanceof PermanentModelError) throw new PermanentJobError(`Image generation failed: ${error.message}`);
    throw error;
  }
}

export interface RenderWithModelInput {
  /** The character step (references for the scene, preparing a family reference on first use). */
  characterFor(characterId: string, sceneStyle: string | undefined, seed: number): Promise<CharacterForScene>;
  jobStore: Pick<JobStore, 'update'>;
  /** An edit's inputs, read (scoped to the job's account) and fitted to the request's size; undefined for no edit (./edit-inputs.ts). */
  editInputsOf(job: JobRecord): Promise<EditInput | undefined>;
  logger: Logger;
}

/** Calls the routed model with the job's seed (and its character's references, and an edit's inputs), then encodes what it made. */
export async function renderWithModel(
  d: RenderWithModelInput,
  job: JobRecord,
  call: RoutedCall,
  seed: number,
  signal: AbortSignal,
  handBack: AbortSignal | undefined,
): Promise<Made> {
  const { jobId, request } = job;
  const asked = request.edit && { images: request.edit.images.length, mask: !!request.edit.mask };
  const refused = asked && editRefusal(call.id, call.model.edits, asked);
  if (refused) throw new PermanentJobError(`Image generation failed: ${refused.message}`);
  const character = request.character ? await d.characterFor(request.character, request.style, seed) : undefined;
  const edit = await d.editInputsOf(job);
  // The backend's progress, throttled onto the job: never a store write per backend message.
  const progress = createProgressThrottle({
    intervalMs: PROGRESS_WRITE_MS,
    write: (p) => d.jobStore.update(jobId, { progress: p }, { ifStatus: ['processing'] }),
    onError: (error) => d.logger.warn('job progress write failed', { jobId, error }),
  });
  const generated = await callModel(
    call,
    {
      prompt: request.prompt,
      style: request.renderStyle,
      promptTemplate: request.promptTemplate,
      strength: request.strength,
      seed,
      negativePrompt: request.negativePrompt,
      width: request.width,
      height: request.height,
      character: character?.input,
      ...(edit && { edit }),
      ...(request.background && { background: request.background }),
      onProgress: progress.report,
    },
    signal,
    handBack,
  ).finally(progress.stop);
  const encoded = await encodeImage(generated.data, request);
  return {
    encoded,
    seed,
    routed: call,
    sourceImageId: null,
    character,
    ...(generated.revisedPrompt !== undefined && { revisedPrompt: generated.revisedPrompt }),
  };
}
