import {
  isCancelled,
  uuidFromName,
  type ActiveJobs,
  type BackendBreaker,
  type BackendBulkhead,
  type EventRecorder,
  type GenerationJobHandler,
  type ImageModel,
  type InvalidationBus,
  type JobAttempt,
  type JobCancellation,
  type JobRecord,
  type JobStore,
  type QuotaService,
  type RenderedImage,
  type SingleFlight,
  type Storage,
  type WebhookNotifier,
} from '@promptpix/core';
import type { AccountRepository, FailedJobRepository, ImageRepository, PermalinkRepository } from '@promptpix/db';
import type { ModelRegistry } from '@promptpix/models';
import type { Logger } from '@promptpix/runtime';
import type { CharacterForScene } from './character-references';
import { completeJob } from './generation-steps/complete-job';
import { failJob, refundUnit } from './generation-steps/final-failure';
import { afterCompleted, discardImageOf, releaseAndNotify } from './generation-steps/job-closing';
import { createKeptRenders, type KeptRenders } from './generation-steps/kept-render';
import { cancelIfShutOut, loadJob, msLeftOf } from './generation-steps/load-job';
import { deriveImage, type Made, renderWithModel, reuseKept, startRun } from './generation-steps/render';
import { createRouteStep } from './generation-steps/route';
import { createRunningJobs } from './generation-steps/running-jobs';
import { storeImage } from './generation-steps/store-image';
import { editInputsOf } from './generation-steps/edit-inputs';
import { upscaleImage } from './generation-steps/upscale';
import type { ModelRouter, ModelRouterDeps, RoutedCall } from './model-routing';

export { REFUND_ATTEMPTS, REFUND_FIRST_WAIT_MS, readableFailure } from './generation-steps/final-failure';
export { RENDERED_CACHE_BYTES } from './generation-steps/kept-render';
export { PROGRESS_WRITE_MS } from './generation-steps/render';

/** Everything the generation job's steps use together; createGenerationProcessor hands each step only its part. */
export interface GenerationProcessorDeps {
  jobStore: JobStore;
  /** The default model. */
  model: ImageModel;
  /** Every model a job may name, by id; jobs are routed under the per-backend circuit breakers (./model-routing.ts). */
  models: ModelRegistry;
  breaker: BackendBreaker | null;
  /** Each backend's limits on calls in flight (./model-routing.ts defers a job whose backend is full). */
  bulkhead: BackendBulkhead;
  /** A call crossed its backend's slow-call threshold; a job was deferred for its backend's bulkhead (metrics). */
  onSlowCall?: ModelRouterDeps['onSlowCall'];
  onDeferred?: ModelRouterDeps['onDeferred'];
  /** The durable list of failed jobs (operators, dashboard). */
  failedJobs: Pick<FailedJobRepository, 'record'>;
  storage: Storage;
  images: ImageRepository;
  /** Adds a regenerated image to the permalinks its job names (`addToPermalinks`). */
  permalinks: Pick<PermalinkRepository, 'addImageToMany'>;
  quota: Pick<QuotaService, 'refund'>;
  events: EventRecorder;
  singleFlight: SingleFlight;
  activeJobs: ActiveJobs;
  /** Tells gateways that cached lookups of this account's images are stale. */
  invalidation: InvalidationBus;
  /** Queues the webhooks of a job that finished (README, "Webhooks"). */
  webhooks: Pick<WebhookNotifier, 'jobFinished'>;
  /** Cancels a job whose Cancel-After deadline passed, or whose account was shut out while it waited. */
  cancellation: JobCancellation;
  accounts: Pick<AccountRepository, 'findById'>;
  /** The character step (references for the scene, preparing a family reference on first use). */
  characterFor(characterId: string, sceneStyle: string | undefined, seed: number): Promise<CharacterForScene>;
  logger: Logger;
  now: () => Date;
}

/** The named steps of a generation job, each already bound to the few dependencies it uses. */
export interface GenerationSteps {
  loadJob(payload: unknown): Promise<JobRecord>;
  afterCompleted(job: JobRecord): Promise<void>;
  discardImageOf(job: JobRecord, imageId: string): Promise<void>;
  msLeft(job: JobRecord): number;
  cancel(jobId: string): Promise<unknown>;
  kept: KeptRenders;
  route: ModelRouter['pick'];
  cancelIfShutOut(job: JobRecord): Promise<boolean>;
  running: ReturnType<typeof createRunningJobs>;
  startRun(job: JobRecord, kept: RenderedImage | null): Promise<{ started: Date; seed: number } | null>;
  reuseKept(job: JobRecord, attempt: JobAttempt, kept: RenderedImage, seed: number): Made;
  derive(job: JobRecord): Promise<Made>;
  /** Whether the model a job names has its own upscaler (an upscale job is then routed to it; else resampled, no model call). */
  hasUpscaler(modelId: string | undefined): boolean;
  upscale(job: JobRecord, call: RoutedCall | undefined, seed: number, signal: AbortSignal, handBack: AbortSignal | undefined): Promise<Made>;
  renderWithModel(job: JobRecord, call: RoutedCall, seed: number, signal: AbortSignal, handBack: AbortSignal | undefined): Promise<Made>;
  storeImage(job: JobRecord, signal: AbortSignal, imageId: string, made: Made): Promise<boolean>;
  completeJob(job: JobRecord, attempt: JobAttempt, imageId: string, made: Made & { started: Date }): Promise<void>;
  failJob(jobId: string, error: Error): Promise<void>;
  logger: Logger;
}

/** The composition: which dependencies go to which step. */
export function composeGenerationSteps(d: GenerationProcessorDeps): GenerationSteps {
  const { jobStore, images, storage, invalidation, cancellation, logger, now } = d;
  const holds = { singleFlight: d.singleFlight, activeJobs: d.activeJobs, webhooks: d.webhooks };
  const closed = (job: JobRecord) => afterCompleted({ ...holds, invalidation }, job);
  const discard = (job: JobRecord, imageId: string) => discardImageOf({ images, invalidation }, job, imageId);
  const route = { model: d.model, models: d.models, breaker: d.breaker, bulkhead: d.bulkhead, onSlowCall: d.onSlowCall, onDeferred: d.onDeferred, logger };
  const characterFor: GenerationProcessorDeps['characterFor'] = (id, style, seed) => d.characterFor(id, style, seed);
  const store = { storage, jobStore, images, permalinks: d.permalinks, invalidation, defaultModelId: d.models.defaultId };
  const complete = { jobStore, storage, events: d.events, afterCompleted: closed, discardImageOf: discard, logger, now };
  const fail = {
    jobStore,
    images,
    failedJobs: d.failedJobs,
    defaultModelId: d.models.defaultId,
    refund: (jobId: string, accountId: string, periodStart: Date) => refundUnit({ quota: d.quota, logger }, jobId, accountId, periodStart),
    releaseAndNotify: (job: JobRecord) => releaseAndNotify(holds, job),
    logger,
    now,
  };
  return {
    loadJob: (payload) => loadJob({ jobStore }, payload),
    afterCompleted: closed,
    discardImageOf: discard,
    msLeft: (job) => msLeftOf({ now }, job),
    cancel: (jobId) => cancellation.cancel(jobId, null),
    kept: createKeptRenders({ jobStore, logger, now }),
    route: createRouteStep(route),
    cancelIfShutOut: (job) => cancelIfShutOut({ accounts: d.accounts, cancellation }, job),
    running: createRunningJobs({ cancellation, logger }),
    startRun: (job, kept) => startRun({ jobStore, now }, job, kept),
    reuseKept: (job, attempt, kept, seed) => reuseKept({ logger }, job, attempt, kept, seed),
    derive: (job) => deriveImage({ images, storage }, job),
    hasUpscaler: (id) => !!(id === undefined || id === d.models.defaultId ? d.model : d.models.get(id)?.model)?.upscale,
    upscale: (job, call, seed, signal, handBack) => upscaleImage({ images, storage, logger }, job, call, seed, signal, handBack),
    renderWithModel: (job, call, seed, signal, handBack) =>
      renderWithModel({ characterFor, jobStore, editInputsOf: (j) => editInputsOf({ storage }, j), logger }, job, call, seed, signal, handBack),
    storeImage: (job, signal, imageId, made) => storeImage(store, job, signal, imageId, made),
    completeJob: (job, attempt, imageId, made) => completeJob(complete, job, attempt, imageId, made),
    failJob: (jobId, error) => failJob(fail, jobId, error),
    logger,
  };
}

/**
 * The `generation` job: model → sharp → content-addressed upload → Image record → job completed.
 * Every step is idempotent, so a retry (or another worker after a crash) finishes the same job
 * without a second Image record.
 */
export function createGenerationProcessor(d: GenerationProcessorDeps) {
  return generationPipeline(composeGenerationSteps(d));
}

/** The job's handling as a pipeline of its named steps, in order. */
export function generationPipeline(s: GenerationSteps) {
  const handle: GenerationJobHandler = async (payload, attempt) => {
    const job = await s.loadJob(payload);
    const { jobId } = job;
    // Completed, or cancelled while it waited: nothing to make. (Another failed job may be an operator's retry.)
    if (job.status === 'completed' || isCancelled(job)) {
      // A run that died between writing "completed" and the steps after it comes back here (stalled
      // job recovery): finish those steps. Each is idempotent, so a plain duplicate costs a few reads.
      if (job.status === 'completed') await s.afterCompleted(job);
      else await s.discardImageOf(job, uuidFromName('image', jobId));
      return;
    }
    const msLeft = s.msLeft(job);
    if (msLeft <= 0) {
      await s.cancel(jobId);
      return;
    }
    // A retry after a later step failed finds what the model made (only a job already processing can have it).
    const kept = (!job.deriveFrom || job.upscale) && job.status === 'processing' ? await s.kept.of(jobId) : null;
    // The backend's breaker and bulkhead decide before the job is taken: it fails fast (the model is
    // down), or waits in the queue (its backend is full), still queued, holding no slot. A derived
    // size calls no model, nor does an upscale for a model without an upscaler (it is resampled).
    const callsModel = !kept && (!job.deriveFrom || (job.upscale && s.hasUpscaler(job.request.model)));
    const routed = callsModel ? await s.route(job.request.model, { jobId }) : undefined;
    // Past the last point where the job could be deferred: its account's next job may go.
    attempt.started?.();
    try {
      if (await s.cancelIfShutOut(job)) return;
      await s.running.guard(jobId, msLeft, (signal) => run(job, attempt, signal, routed, kept));
    } finally {
      routed?.release();
    }
  };

  const run = async (job: JobRecord, attempt: JobAttempt, signal: AbortSignal, routedCall: RoutedCall | undefined, kept: RenderedImage | null) => {
    const start = await s.startRun(job, kept);
    if (!start) return;
    const made = kept
      ? s.reuseKept(job, attempt, kept, start.seed)
      : job.upscale
        ? await s.upscale(job, routedCall, start.seed, signal, attempt.handBack)
        : job.deriveFrom
          ? await s.derive(job)
          : await s.renderWithModel(job, routedCall!, start.seed, signal, attempt.handBack);
    try {
      // Everything after the image is made: store it, record it, complete the job. Each step is idempotent.
      const imageId = uuidFromName('image', job.jobId);
      if (await s.storeImage(job, signal, imageId, made)) await s.completeJob(job, attempt, imageId, { ...made, started: start.started });
    } catch (error) {
      // The model's work is kept for the retry (the same seed, the same content-addressed file).
      if (routedCall && !kept && !signal.aborted) await s.kept.keep(job.jobId, keptImage(made, routedCall));
      throw error;
    }
    if (kept) s.kept.forget(job.jobId);
  };

  /** Attempts exhausted: the job ends failed with a readable error and its quota unit comes back. */
  async function onFinalFailure(payload: { jobId: string }, error: Error): Promise<void> {
    s.logger.warn('generation failed', { jobId: payload.jobId, error: error.message });
    s.kept.forget(payload.jobId);
    await s.failJob(payload.jobId, error);
  }

  return { handle, onFinalFailure, abort: s.running.abort };
}

/** What a model call made, kept for a retry of its job. */
const keptImage = (made: Made, call: RoutedCall): RenderedImage => ({
  data: made.encoded.data,
  key: made.encoded.key,
  contentType: made.encoded.contentType,
  seed: made.seed,
  model: call.id,
  ...(call.fallbackFrom && { fallbackFrom: call.fallbackFrom }),
  ...(made.revisedPrompt !== undefined && { revisedPrompt: made.revisedPrompt }),
});
