import { randomInt } from 'node:crypto';
import {
  accountStatusError,
  isShutOut,
  normalizePrompt,
  PermanentJobError,
  JobHandedBackError,
  uuidFromName,
  type EventRecorder,
  type GenerationJobHandler,
  type JobAttempt,
  type JobRecord,
  CANCELLED,
  isCancelled,
  releaseJobHolds,
  type BackendBreaker,
  type BackendBulkhead,
  type ImageModel,
  type ModelRequest,
  type JobStore,
  type RenderedImage,
  redactAddresses,
  type QuotaService,
  type SingleFlight,
  type ActiveJobs,
  type InvalidationBus,
  type JobCancellation,
  type WebhookNotifier,
  type Storage,
  createProgressThrottle,
} from '@promptpix/core';
import { generationJobPayloadSchema } from '@promptpix/contracts';
import type { AccountRepository, FailedJobRepository, ImageRepository, PermalinkRepository } from '@promptpix/db';
import type { Logger } from '@promptpix/runtime';
import { encodeImage, PermanentModelError, type EncodedImage, type ModelRegistry } from '@promptpix/models';
import type { CharacterForScene } from './character-references';
import { createModelRouter, type ModelRouterDeps, type RoutedCall } from './model-routing';
import { createRenderedCache } from './rendered-cache';

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

/**
 * A final failure's refund is tried this often, the waits doubling from REFUND_FIRST_WAIT_MS
 * (about 30 s in all): the job already reads failed with its unit marked refunded, so a database
 * outage at that moment must not keep the unit spent.
 */
export const REFUND_ATTEMPTS = 7;
export const REFUND_FIRST_WAIT_MS = 500;

/** Backend progress reaches the job store at most this often (the event stream reads it every 500 ms). */
export const PROGRESS_WRITE_MS = 500;

/**
 * A provider's refusal that retrying cannot fix (a 4xx) ends the job at once. The breaker hears
 * how the call ended (./model-routing.ts); a cancel or a hand-back (a worker shutting down past its
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

/** Which model made a job's image, on its record: the one it named, or the fallback that stood in. */
const servedBy = (routed: Pick<RoutedCall, 'id' | 'fallbackFrom'> | undefined): Partial<JobRecord> =>
  routed ? { model: routed.id, ...(routed.fallbackFrom && { fallbackFrom: routed.fallbackFrom }) } : {};

/** What a caller reads in `error` when a job fails for good: never an internal service's address (the worker's log has the full error). */
export function readableFailure(error: Error): string {
  if (error instanceof PermanentJobError) return redactAddresses(error.message);
  return redactAddresses(`Image generation failed: ${error.message}`).slice(0, 500);
}

/** Rendered images kept in this process for a retry (besides the job store's copy), by bytes held. */
export const RENDERED_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The `generation` job: model → sharp → content-addressed upload → Image record → job completed.
 * Every step is idempotent, so a retry (or another worker after a crash) finishes the same job
 * without a second Image record.
 */
export function createGenerationProcessor(d: GenerationProcessorDeps) {
  /** The jobs this process is running, so a cancellation can stop their model calls. */
  const running = new Map<string, AbortController>();
  const router = createModelRouter({
    registry: d.models,
    defaultModel: d.model,
    breaker: d.breaker,
    bulkhead: d.bulkhead,
    onBreakerError: (error) => d.logger.warn('circuit breaker store failed', { error }),
    onSlowCall: (model, ms, jobId) => {
      d.logger.warn('model call slower than its slow-call threshold: counted against its backend', { jobId, model, slowCallMs: ms });
      d.onSlowCall?.(model, ms, jobId);
    },
    onDeferred: d.onDeferred,
  });
  /** What a model call made for a job whose later step failed: kept here and in the job store, so its retry skips the model. */
  const renderedHere = createRenderedCache({ maxBytes: RENDERED_CACHE_BYTES, ttlMs: 3600_000, now: () => d.now().getTime() });

  const handle: GenerationJobHandler = async (payload, attempt) => {
    const parsed = generationJobPayloadSchema.safeParse(payload);
    if (!parsed.success) throw new PermanentJobError('Unreadable job payload');
    const { jobId } = parsed.data;
    const job = await d.jobStore.get(jobId);
    if (!job) throw new PermanentJobError('The job expired before it could run');
    // Completed, or cancelled while it waited: nothing to make. (Another failed job may be an operator's retry.)
    if (job.status === 'completed' || isCancelled(job)) {
      // A run that died between writing "completed" and the steps after it comes back here (stalled
      // job recovery): finish those steps. Each is idempotent, so a plain duplicate costs a few reads.
      if (job.status === 'completed') await afterCompleted(job);
      else await discardImageOf(job, uuidFromName('image', jobId));
      return;
    }
    const msLeft = job.cancelAt ? Date.parse(job.cancelAt) - d.now().getTime() : Infinity;
    if (msLeft <= 0) {
      await d.cancellation.cancel(jobId, null);
      return;
    }
    // A retry after a later step failed finds what the model made (only a job already processing can have it).
    const kept = !job.deriveFrom && job.status === 'processing' ? await renderedOf(jobId) : null;
    // The backend's breaker and bulkhead decide before the job is taken: it fails fast (the model is
    // down), or waits in the queue (its backend is full), still queued, holding no slot.
    const routed = job.deriveFrom || kept ? undefined : await router.pick(job.request.model, { jobId });
    // Past the last point where the job could be deferred: its account's next job may go.
    attempt.started?.();
    try {
      // Suspended or banned since the job was accepted: not run; refunded while still queued.
      const account = job.status === 'queued' ? await d.accounts.findById(job.accountId) : null;
      if (account && isShutOut(account.status)) {
        await d.cancellation.cancel(jobId, null, accountStatusError(account.status)!.message);
        return;
      }
      const controller = new AbortController();
      running.set(jobId, controller);
      // The deadline cancels through the same path as DELETE, which then aborts this run.
      const deadline = Number.isFinite(msLeft)
        ? setTimeout(() => void d.cancellation.cancel(jobId, null).catch((error: unknown) => d.logger.warn('deadline cancel failed', { jobId, error })), msLeft)
        : undefined;
      try {
        await run(job, attempt, controller.signal, routed, kept);
      } finally {
        clearTimeout(deadline);
        running.delete(jobId);
      }
    } finally {
      routed?.release();
    }
  };

  /** The image a failed attempt of this job kept: from this process, else from the job store (another worker's attempt). */
  async function renderedOf(jobId: string): Promise<RenderedImage | null> {
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
  async function keepRendered(jobId: string, rendered: RenderedImage): Promise<void> {
    renderedHere.set(jobId, rendered);
    try {
      await d.jobStore.keepRendered(jobId, rendered);
    } catch (error) {
      d.logger.warn('could not keep the rendered image in the job store; kept in this worker only', { jobId, error });
    }
  }

  function forgetRendered(jobId: string): void {
    renderedHere.delete(jobId);
    d.jobStore.dropRendered(jobId).catch((error: unknown) => d.logger.warn('could not drop a kept rendered image (it expires with the job)', { jobId, error }));
  }

  /** What follows "completed": free the job's holds, tell its webhooks, evict cached image lists. */
  async function afterCompleted(job: JobRecord): Promise<void> {
    await releaseJobHolds(d, job);
    await d.webhooks.jobFinished(job.jobId);
    await d.invalidation.publish({ kind: 'images', accountId: job.accountId });
  }

  /**
   * A job cancelled after its image was saved (the cancel landed between the last check and
   * "completed", or a crashed run saved it): the record goes, with its permalink entries, so the
   * cancelled job is not served from the cache. The content-addressed file stays; files are shared.
   */
  async function discardImageOf(job: JobRecord, imageId: string): Promise<void> {
    if (!(await d.images.deleteUnfinished(imageId, job.jobId))) return;
    await d.invalidation.publish({ kind: 'images', accountId: job.accountId });
    if (job.addToPermalinks && job.addToPermalinks.length > 0) await d.invalidation.publish({ kind: 'permalinks', accountId: job.accountId });
  }

  const run = async (
    job: JobRecord,
    attempt: JobAttempt,
    signal: AbortSignal,
    routedCall: RoutedCall | undefined,
    kept: RenderedImage | null,
  ): Promise<void> => {
    const { jobId } = job;

    const started = d.now();
    const { request } = job;
    // Drawn once, by the first attempt, and kept on the record: a retry makes the same image.
    let seed = kept?.seed ?? request.seed ?? job.seed ?? randomInt(2 ** 32);
    // Only from the status read above (queued, a retry's processing, or an operator's retry of a
    // failed job): a cancel that landed since then is not overwritten.
    if (
      !(await d.jobStore.update(
        jobId,
        { status: 'processing', startedAt: job.startedAt ?? started.toISOString(), ...(!job.deriveFrom && { seed }) },
        { ifStatus: [job.status] },
      ))
    )
      return;

    let encoded: RenderedImage | EncodedImage;
    let sourceImageId: string | null = null;
    let character: CharacterForScene | undefined;
    // Which model made the image: this attempt's call, or the attempt whose image was kept.
    const routed: Pick<RoutedCall, 'id' | 'fallbackFrom'> | undefined = kept ? { id: kept.model, fallbackFrom: kept.fallbackFrom } : routedCall;
    if (kept) {
      encoded = kept;
      d.logger.info('generation retried with the image a previous attempt made: no model call', { jobId, attempt: attempt.attempt });
    } else if (job.deriveFrom) {
      // Another size/format of a cached image: re-encode the stored original, no model call.
      const source = await d.images.findById(job.deriveFrom);
      const bytes = source && (await d.storage.get(source.storageKey));
      if (!source || !bytes) throw new PermanentJobError('The cached image to derive from is gone');
      sourceImageId = source.id;
      seed = Number(source.seed);
      encoded = await encodeImage(bytes, request);
    } else {
      const call = routedCall!;
      character = request.character ? await d.characterFor(request.character, request.style, seed) : undefined;
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
          onProgress: progress.report,
        },
        signal,
        attempt.handBack,
      ).finally(progress.stop);
      encoded = await encodeImage(generated.data, request);
    }
    try {
      await finish(job, attempt, signal, { encoded, seed, routed, sourceImageId, character, started });
    } catch (error) {
      // The model's work is kept for the retry (the same seed, the same content-addressed file).
      if (routedCall && !kept && !signal.aborted)
        await keepRendered(jobId, {
          data: encoded.data,
          key: encoded.key,
          contentType: encoded.contentType,
          seed,
          model: routedCall.id,
          ...(routedCall.fallbackFrom && { fallbackFrom: routedCall.fallbackFrom }),
        });
      throw error;
    }
    if (kept) forgetRendered(jobId);
  };

  /** Everything after the image is made: store it, record it, complete the job. Each step is idempotent. */
  const finish = async (
    job: JobRecord,
    attempt: JobAttempt,
    signal: AbortSignal,
    made: {
      encoded: EncodedImage;
      seed: number;
      routed: Pick<RoutedCall, 'id' | 'fallbackFrom'> | undefined;
      sourceImageId: string | null;
      character: CharacterForScene | undefined;
      started: Date;
    },
  ): Promise<void> => {
    const { jobId, request } = job;
    const { encoded, seed, routed, sourceImageId, character, started } = made;
    const imageId = uuidFromName('image', jobId);
    await d.storage.put(encoded.key, encoded.data, encoded.contentType);
    // Cancelled while the image was being made: no record, so a cancelled job leaves nothing in the cache.
    if (signal.aborted || (await d.jobStore.get(jobId))?.status !== 'processing') return;
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
      model: routed ? (routed.id === d.models.defaultId ? null : routed.id) : (request.model ?? null),
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
    const completedAt = d.now();
    // Only a job still processing completes: a cancel that won the race keeps it cancelled.
    const completed = await d.jobStore.update(
      jobId,
      { status: 'completed', imageId, imageUrl: d.storage.publicUrl(encoded.key), completedAt: completedAt.toISOString(), seed, ...servedBy(routed) },
      { ifStatus: ['processing'] },
    );
    if (!completed) {
      await discardImageOf(job, imageId);
      return;
    }
    await afterCompleted(job);
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
  };

  /** Attempts exhausted: the job ends failed with a readable error and its quota unit comes back. */
  async function onFinalFailure(payload: { jobId: string }, error: Error): Promise<void> {
    d.logger.warn('generation failed', { jobId: payload.jobId, error: error.message });
    forgetRendered(payload.jobId);
    const job = await d.jobStore.get(payload.jobId);
    if (!job || job.status === 'completed' || job.status === 'failed') return;
    const refund = job.quotaCharged && job.quotaPeriodStart;
    const place = job.derivedPlace && job.deriveFrom;
    const reason = readableFailure(error);
    const failedAt = d.now();
    // As in cancellation: only the step that moves the job out of queued/processing refunds.
    const failed = await d.jobStore.update(
      payload.jobId,
      {
        status: 'failed',
        error: reason,
        completedAt: failedAt.toISOString(),
        ...(refund ? { quotaCharged: false } : {}),
        ...(place ? { derivedPlace: false } : {}),
      },
      { ifStatus: ['queued', 'processing'] },
    );
    if (!failed) return;
    if (refund) await refundUnit(job.jobId, job.accountId, new Date(job.quotaPeriodStart!));
    if (place)
      await d.images
        .giveBackDerivedPlace(place)
        .catch((e: unknown) => d.logger.warn('could not give back a derived-size place', { jobId: job.jobId, error: e }));
    await releaseJobHolds(d, job);
    await d.webhooks.jobFinished(payload.jobId);
    // Kept past the job store's hour for operators and the dashboard; a lost row loses only the listing.
    await d.failedJobs
      .record({
        jobId: job.jobId,
        accountId: job.accountId,
        model: job.request.model ?? d.models.defaultId,
        reason,
        request: job.request,
        createdAt: new Date(job.createdAt),
        failedAt,
      })
      .catch((e: unknown) => d.logger.warn('could not record a failed job', { jobId: job.jobId, error: e }));
  }

  /** Gives a failed job's quota unit back, retrying through a database outage; never throws (the job's other closing steps still run). */
  async function refundUnit(jobId: string, accountId: string, periodStart: Date): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await d.quota.refund(accountId, periodStart);
        if (attempt > 1) d.logger.info('quota refund landed after retries', { jobId, attempt });
        return;
      } catch (error) {
        if (attempt >= REFUND_ATTEMPTS) {
          d.logger.error('quota refund lost', { jobId, accountId, periodStart: periodStart.toISOString(), attempts: attempt, error });
          return;
        }
        d.logger.warn('quota refund failed, will retry', { jobId, attempt, error });
        await new Promise((resolve) => setTimeout(resolve, REFUND_FIRST_WAIT_MS * 2 ** (attempt - 1)));
      }
    }
  }

  /** Stops this process's run of a cancelled job, if it has one. */
  const abort = (jobId: string): void => running.get(jobId)?.abort();

  return { handle, onFinalFailure, abort };
}
