import { randomInt } from 'node:crypto';
import {
  normalizePrompt,
  PermanentJobError,
  uuidFromName,
  type EventRecorder,
  type GenerationJobHandler,
  type ImageModel,
  type ModelRequest,
  type JobStore,
  type QuotaService,
  type SingleFlight,
  type InvalidationBus,
  type Storage,
} from '@promptpix/core';
import { generationJobPayloadSchema } from '@promptpix/contracts';
import type { ImageRepository } from '@promptpix/db';
import type { Logger } from '@promptpix/runtime';
import { encodeImage, PermanentModelError } from '@promptpix/models';
import type { CharacterForScene } from './character-references';

export interface GenerationProcessorDeps {
  jobStore: JobStore;
  model: ImageModel;
  storage: Storage;
  images: ImageRepository;
  quota: Pick<QuotaService, 'refund'>;
  events: EventRecorder;
  singleFlight: SingleFlight;
  /** Tells gateways that cached lookups of this account's images are stale. */
  invalidation: InvalidationBus;
  /** The character step (references for the scene, preparing a family reference on first use). */
  characterFor(characterId: string, sceneStyle: string | undefined, seed: number): Promise<CharacterForScene>;
  logger: Logger;
  now: () => Date;
}

/** A provider's refusal that retrying cannot fix (a 4xx) ends the job at once. */
async function callModel(model: ImageModel, request: ModelRequest) {
  try {
    return await model.generate(request);
  } catch (error) {
    if (error instanceof PermanentModelError) throw new PermanentJobError(`Image generation failed: ${error.message}`);
    throw error;
  }
}

/** What a caller reads in `error` when a job fails for good. */
export function readableFailure(error: Error): string {
  if (error instanceof PermanentJobError) return error.message;
  return `Image generation failed: ${error.message}`.slice(0, 500);
}

/**
 * The `generation` job: model → sharp → content-addressed upload → Image record → job completed.
 * Every step is idempotent, so a retry (or another worker after a crash) finishes the same job
 * without a second Image record.
 */
export function createGenerationProcessor(d: GenerationProcessorDeps) {
  const handle: GenerationJobHandler = async (payload, attempt) => {
    const parsed = generationJobPayloadSchema.safeParse(payload);
    if (!parsed.success) throw new PermanentJobError('Unreadable job payload');
    const { jobId } = parsed.data;
    const job = await d.jobStore.get(jobId);
    if (!job) throw new PermanentJobError('The job expired before it could run');
    if (job.status === 'completed') return;

    const started = d.now();
    await d.jobStore.update(jobId, { status: 'processing', startedAt: job.startedAt ?? started.toISOString() });
    const { request } = job;
    const imageId = uuidFromName('image', jobId);
    const seed = randomInt(2 ** 31);

    let input: Buffer;
    let sourceImageId: string | null = null;
    let character: CharacterForScene | undefined;
    if (job.deriveFrom) {
      // Another size/format of a cached image: re-encode the stored original, no model call.
      const source = await d.images.findById(job.deriveFrom);
      const bytes = source && (await d.storage.get(source.storageKey));
      if (!source || !bytes) throw new PermanentJobError('The cached image to derive from is gone');
      input = bytes;
      sourceImageId = source.id;
    } else {
      character = request.character ? await d.characterFor(request.character, request.style, seed) : undefined;
      const generated = await callModel(d.model, {
        prompt: request.prompt,
        style: request.renderStyle,
        promptTemplate: request.promptTemplate,
        strength: request.strength,
        seed,
        width: request.width,
        height: request.height,
        character: character?.input,
      });
      input = generated.data;
    }
    const encoded = await encodeImage(input, request);
    await d.storage.put(encoded.key, encoded.data, encoded.contentType);
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
      storageKey: encoded.key,
      bytes: encoded.data.length,
      sourceImageId,
      jobId,
    });
    const completedAt = d.now();
    await d.jobStore.update(jobId, { status: 'completed', imageId, imageUrl: d.storage.publicUrl(encoded.key), completedAt: completedAt.toISOString() });
    if (job.flightKey) await d.singleFlight.release(job.flightKey, jobId);
    await d.invalidation.publish({ kind: 'images', accountId: job.accountId });
    if (!sourceImageId) {
      const reference = character?.prepared && { referenceFamily: character.prepared.family, referenceReused: character.prepared.reused, referenceMs: character.prepared.ms };
      d.events.record({ accountId: job.accountId, eventType: 'generate', imageId, metadata: { jobId, model: d.model.name, ms: completedAt.getTime() - started.getTime(), ...reference } });
      if (request.style) d.events.record({ accountId: job.accountId, eventType: 'style_applied', imageId, metadata: { style: request.style } });
    }
    d.logger.info('generation completed', { jobId, imageId, attempt: attempt.attempt, ms: completedAt.getTime() - started.getTime() });
  };

  /** Attempts exhausted: the job ends failed with a readable error and its quota unit comes back. */
  async function onFinalFailure(payload: { jobId: string }, error: Error): Promise<void> {
    d.logger.warn('generation failed', { jobId: payload.jobId, error: error.message });
    const job = await d.jobStore.get(payload.jobId);
    if (!job || job.status === 'completed' || job.status === 'failed') return;
    // Refund before the job reads as failed, so a caller who sees `failed` also sees the unit back.
    const refund = job.quotaCharged && job.quotaPeriodStart;
    if (refund) await d.quota.refund(job.accountId, new Date(job.quotaPeriodStart!));
    await d.jobStore.update(payload.jobId, { status: 'failed', error: readableFailure(error), completedAt: d.now().toISOString(), ...(refund ? { quotaCharged: false } : {}) });
    if (job.flightKey) await d.singleFlight.release(job.flightKey, payload.jobId);
  }

  return { handle, onFinalFailure };
}
