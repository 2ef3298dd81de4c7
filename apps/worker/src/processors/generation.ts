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
  type ImageModel,
  type ModelRequest,
  type JobStore,
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
import { encodeImage, PermanentModelError, type ModelRegistry } from '@promptpix/models';
import type { CharacterForScene } from './character-references';
import { createModelRouter, type RoutedCall } from './model-routing';

export interface GenerationProcessorDeps {
  jobStore: JobStore;
  /** The default model. */
  model: ImageModel;
  /** Every model a job may name, by id; jobs are routed under the per-backend circuit breakers (./model-routing.ts). */
  models: ModelRegistry;
  breaker: BackendBreaker | null;
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
 * how the call ended; a cancel or a hand-back (a worker shutting down past its grace period stops
 * the call and hands the job back) tells it nothing about the backend.
 */
async function callModel(routed: RoutedCall, request: ModelRequest, signal: AbortSignal, handBack?: AbortSignal) {
  try {
    const image = await routed.model.generate(request, handBack ? AbortSignal.any([signal, handBack]) : signal);
    await routed.settle(undefined, false);
    return image;
  } catch (error) {
    await routed.settle(error, signal.aborted || !!handBack?.aborted);
    if (signal.aborted) throw new PermanentJobError(CANCELLED);
    if (handBack?.aborted) throw new JobHandedBackError();
    if (error instanceof PermanentModelError) throw new PermanentJobError(`Image generation failed: ${error.message}`);
    throw error;
  }
}

/** Which model made a job's image, on its record: the one it named, or the fallback that stood in. */
const servedBy = (routed: RoutedCall | undefined): Partial<JobRecord> => (routed ? { model: routed.id, ...(routed.fallbackFrom && { fallbackFrom: routed.fallbackFrom }) } : {});

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
  /** The jobs this process is running, so a cancellation can stop their model calls. */
  const running = new Map<string, AbortController>();
  const router = createModelRouter({ registry: d.models, defaultModel: d.model, breaker: d.breaker, onBreakerError: (error) => d.logger.warn('circuit breaker store failed', { error }) });

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
    // Suspended or banned since the job was accepted: not run; refunded while still queued.
    const account = job.status === 'queued' ? await d.accounts.findById(job.accountId) : null;
    if (account && isShutOut(account.status)) {
      await d.cancellation.cancel(jobId, null, accountStatusError(account.status)!.message);
      return;
    }
    const controller = new AbortController();
    running.set(jobId, controller);
    // The deadline cancels through the same path as DELETE, which then aborts this run.
    const deadline = Number.isFinite(msLeft) ? setTimeout(() => void d.cancellation.cancel(jobId, null).catch((error: unknown) => d.logger.warn('deadline cancel failed', { jobId, error })), msLeft) : undefined;
    try {
      await run(job, attempt, controller.signal);
    } finally {
      clearTimeout(deadline);
      running.delete(jobId);
    }
  };

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

  const run = async (job: JobRecord, attempt: JobAttempt, signal: AbortSignal): Promise<void> => {
    const { jobId } = job;

    const started = d.now();
    // Only from the status read above (queued, a retry's processing, or an operator's retry of a
    // failed job): a cancel that landed since then is not overwritten.
    if (!(await d.jobStore.update(jobId, { status: 'processing', startedAt: job.startedAt ?? started.toISOString() }, { ifStatus: [job.status] }))) return;
    const { request } = job;
    const imageId = uuidFromName('image', jobId);
    let seed = request.seed ?? randomInt(2 ** 32);

    let input: Buffer;
    let sourceImageId: string | null = null;
    let character: CharacterForScene | undefined;
    let routed: RoutedCall | undefined;
    if (job.deriveFrom) {
      // Another size/format of a cached image: re-encode the stored original, no model call.
      const source = await d.images.findById(job.deriveFrom);
      const bytes = source && (await d.storage.get(source.storageKey));
      if (!source || !bytes) throw new PermanentJobError('The cached image to derive from is gone');
      input = bytes;
      sourceImageId = source.id;
      seed = Number(source.seed);
    } else {
      routed = await router.pick(request.model);
      character = request.character ? await d.characterFor(request.character, request.style, seed) : undefined;
      // The backend's progress, throttled onto the job: never a store write per backend message.
      const progress = createProgressThrottle({
        intervalMs: PROGRESS_WRITE_MS,
        write: (p) => d.jobStore.update(jobId, { progress: p }, { ifStatus: ['processing'] }),
        onError: (error) => d.logger.warn('job progress write failed', { jobId, error }),
      });
      const generated = await callModel(routed, {
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
      }, signal, attempt.handBack).finally(progress.stop);
      input = generated.data;
    }
    const encoded = await encodeImage(input, request);
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
    const completed = await d.jobStore.update(jobId, { status: 'completed', imageId, imageUrl: d.storage.publicUrl(encoded.key), completedAt: completedAt.toISOString(), seed, ...servedBy(routed) }, { ifStatus: ['processing'] });
    if (!completed) {
      await discardImageOf(job, imageId);
      return;
    }
    await afterCompleted(job);
    if (!sourceImageId) {
      const reference = character?.prepared && { referenceFamily: character.prepared.family, referenceReused: character.prepared.reused, referenceMs: character.prepared.ms };
      d.events.record({ accountId: job.accountId, eventType: 'generate', imageId, metadata: { jobId, model: routed?.id, ...(routed?.fallbackFrom && { fallbackFrom: routed.fallbackFrom }), ms: completedAt.getTime() - started.getTime(), ...reference } });
      if (request.style) d.events.record({ accountId: job.accountId, eventType: 'style_applied', imageId, metadata: { style: request.style } });
    }
    d.logger.info('generation completed', { jobId, imageId, attempt: attempt.attempt, ms: completedAt.getTime() - started.getTime() });
  };

  /** Attempts exhausted: the job ends failed with a readable error and its quota unit comes back. */
  async function onFinalFailure(payload: { jobId: string }, error: Error): Promise<void> {
    d.logger.warn('generation failed', { jobId: payload.jobId, error: error.message });
    const job = await d.jobStore.get(payload.jobId);
    if (!job || job.status === 'completed' || job.status === 'failed') return;
    const refund = job.quotaCharged && job.quotaPeriodStart;
    const reason = readableFailure(error);
    const failedAt = d.now();
    // As in cancellation: only the step that moves the job out of queued/processing refunds.
    const failed = await d.jobStore.update(payload.jobId, { status: 'failed', error: reason, completedAt: failedAt.toISOString(), ...(refund ? { quotaCharged: false } : {}) }, { ifStatus: ['queued', 'processing'] });
    if (!failed) return;
    if (refund) await refundUnit(job.jobId, job.accountId, new Date(job.quotaPeriodStart!));
    await releaseJobHolds(d, job);
    await d.webhooks.jobFinished(payload.jobId);
    // Kept past the job store's hour for operators and the dashboard; a lost row loses only the listing.
    await d.failedJobs
      .record({ jobId: job.jobId, accountId: job.accountId, model: job.request.model ?? d.models.defaultId, reason, request: job.request, createdAt: new Date(job.createdAt), failedAt })
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
