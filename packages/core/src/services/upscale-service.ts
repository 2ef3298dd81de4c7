import { ErrorMessages, type GenerationRequest, type ImageFormat, type UpscaleFactor } from '@promptpix/contracts';
import { AppError, fieldError } from '../errors';
import { upscaledSize } from '../image-inputs';
import type { ActiveJobs, JobAdmission, SingleFlight } from '../ports/coordination';
import type { JobRecord, JobStore } from '../ports/job-store';
import type { GenerationQueue } from '../ports/queue';
import type { Storage } from '../ports/storage';
import { quotaExceededError, type QuotaState } from '../quota';
import { fairnessGroupOf } from '../queueing/fair-order';
import { MAX_DERIVED_PER_IMAGE } from '../render-cache';
import { ACTIVE_JOBS_RETRY_MS, type Caller, JOB_TTL_SECONDS, type StartOutcome } from './generation-service';
import { releaseJobHolds } from './job-holds';
import type { QuotaAccount, QuotaService } from './quota-service';

/** The image to upscale, as the account's Image row has it. */
export interface UpscaleSource {
  id: string;
  accountId: string;
  prompt: string;
  style: string | null;
  strength: number;
  characterId: string | null;
  ageBucket: string | null;
  width: number;
  height: number;
  format: string;
  seed: bigint | number;
  negativePrompt: string | null;
  model: string | null;
  inputKey: string | null;
}

/** An upscaled copy already stored: the same upscale again is answered with it. */
export interface StoredUpscale {
  id: string;
  storageKey: string;
  seed: bigint | number;
}

export interface UpscaleServiceDeps {
  jobStore: JobStore;
  queue: GenerationQueue;
  quota: QuotaService;
  singleFlight: SingleFlight;
  activeJobs: ActiveJobs;
  admission: JobAdmission;
  storage: Pick<Storage, 'publicUrl'>;
  /** The image's places for derived copies (MAX_DERIVED_PER_IMAGE, shared with derived sizes), taken in one conditional statement. */
  places: {
    takeUpscalePlace(id: string, accountId: string, cap: number): Promise<boolean>;
    giveBackDerivedPlace(id: string): Promise<void>;
  };
  /** The account's stored copy of `sourceId` at this size and format, or null. */
  findUpscaled(sourceId: string, accountId: string, variant: { width: number; height: number; format: string }): Promise<StoredUpscale | null>;
  now: () => Date;
  newId: () => string;
  onError: (message: string, error: unknown) => void;
}

export interface UpscaleStarted {
  job: JobRecord;
  quota: QuotaState;
  outcome: Exclude<StartOutcome, 'derived'>;
}

/** Refused when an image has no place left for another derived copy. */
export const upscalePlacesMessage = `This image has ${MAX_DERIVED_PER_IMAGE} derived copies already; upscale another image`;

/** The generation request an upscale job carries: the source's own, at the larger size (its seed kept). */
export function upscaleRequestOf(source: UpscaleSource, size: { width: number; height: number }): GenerationRequest {
  return {
    prompt: source.prompt,
    ...(source.style !== null && { style: source.style }),
    strength: source.strength,
    ...(source.characterId !== null && { character: source.characterId }),
    ...(source.ageBucket !== null && { ageBucket: source.ageBucket as GenerationRequest['ageBucket'] }),
    ...(source.negativePrompt !== null && { negativePrompt: source.negativePrompt }),
    ...(source.model !== null && { model: source.model }),
    width: size.width,
    height: size.height,
    format: source.format as ImageFormat,
    seed: Number(source.seed),
  };
}

/**
 * POST /api/v1/image/:id/upscale (issue #31): a copy of one of the account's images, 2× or 4× on
 * each side, derived from it (its `sourceImageId`) and owned by the same account. One quota unit
 * (the backend's upscaler is model compute; the resampler is not, but a caller cannot tell which
 * runs), and one of the image's MAX_DERIVED_PER_IMAGE places, both given back when the job fails
 * or is cancelled while queued. The same upscale again is the stored copy, free; one in flight is
 * joined. The caller looks the image up in its own account (another account's is a 404).
 */
export const createUpscaleService = (d: UpscaleServiceDeps) => ({
  async upscale(
    account: QuotaAccount,
    source: UpscaleSource,
    factor: UpscaleFactor,
    options: { caller?: Caller; webhookUrl?: string } = {},
  ): Promise<UpscaleStarted> {
    if (source.accountId !== account.id) throw new AppError('not_found', ErrorMessages.imageNotFound);
    const size = upscaledSize(source, factor);
    if ('problem' in size) throw fieldError('factor', size.problem);
    const request = upscaleRequestOf(source, size);
    const { caller, webhookUrl } = options;

    const stored = await d.findUpscaled(source.id, account.id, { ...size, format: request.format });
    if (stored) {
      const now = d.now().toISOString();
      const job: JobRecord = {
        jobId: d.newId(),
        accountId: account.id,
        status: 'completed',
        createdAt: now,
        completedAt: now,
        request,
        imageId: stored.id,
        imageUrl: d.storage.publicUrl(stored.storageKey),
        seed: Number(stored.seed),
        ...(webhookUrl && { webhookUrl }),
      };
      await d.jobStore.create(job, JOB_TTL_SECONDS);
      return { job, quota: await d.quota.peek(account), outcome: 'cached' };
    }

    const flightKey = `upscale:${source.id}:${factor}:${request.format}`;
    const jobId = d.newId();
    const holder = await d.singleFlight.claim(flightKey, jobId, JOB_TTL_SECONDS);
    if (holder !== null) {
      const joined = await d.jobStore.get(holder);
      if (joined && joined.status !== 'failed') return { job: joined, quota: await d.quota.peek(account), outcome: 'joined' };
      // The holder's job is gone or failed: its key is stale.
      await d.singleFlight.release(flightKey, holder);
      if ((await d.singleFlight.claim(flightKey, jobId, JOB_TTL_SECONDS)) !== null)
        throw new AppError('unavailable', ErrorMessages.serviceUnavailable, {}, { 'Retry-After': '1' });
    }
    const releaseFlight = () => d.singleFlight.release(flightKey, jobId);

    const reservation = await d.quota.reserve(account).catch(async (error: unknown) => {
      await releaseFlight();
      throw error;
    });
    if (!reservation.ok) {
      await releaseFlight();
      throw quotaExceededError(reservation.state);
    }
    const refund = () => d.quota.refund(account.id, reservation.periodStart);
    if (
      !(await d.places.takeUpscalePlace(source.id, account.id, MAX_DERIVED_PER_IMAGE).catch(async (error: unknown) => {
        await refund();
        await releaseFlight();
        throw error;
      }))
    ) {
      await refund();
      await releaseFlight();
      throw new AppError('conflict', upscalePlacesMessage);
    }
    const giveBack = async () => {
      await d.places.giveBackDerivedPlace(source.id);
      await refund();
      await releaseFlight();
    };

    const job: JobRecord = {
      jobId,
      accountId: account.id,
      status: 'queued',
      createdAt: d.now().toISOString(),
      request,
      upscale: { factor, inputKey: source.inputKey },
      deriveFrom: source.id,
      derivedPlace: true,
      quotaCharged: true,
      quotaPeriodStart: reservation.periodStart.toISOString(),
      flightKey,
      ...(caller && { activeSlot: caller.keyId }),
      ...(webhookUrl && { webhookUrl }),
    };
    const admitted = await d.admission
      .open({ job, ttlSeconds: JOB_TTL_SECONDS, nowMs: d.now().getTime(), cap: caller && { bucket: caller.keyId, limit: caller.activeJobLimit } })
      .catch(async (error: unknown) => {
        await giveBack().catch((e: unknown) => d.onError('undo after a failed admission failed', e));
        throw error;
      });
    if (admitted === 'capped') {
      await giveBack();
      throw new AppError(
        'rate_limited',
        ErrorMessages.tooManyActiveJobs,
        { retryAfterMs: ACTIVE_JOBS_RETRY_MS },
        { 'Retry-After': String(ACTIVE_JOBS_RETRY_MS / 1000) },
      );
    }
    try {
      await d.queue.enqueue({ v: 1, jobId }, { group: fairnessGroupOf(account.id, request.model) });
    } catch (error) {
      d.onError('could not enqueue an upscale job', error);
      await d.places.giveBackDerivedPlace(source.id).catch((e: unknown) => d.onError('undo after enqueue failure failed', e));
      await refund().catch((e: unknown) => d.onError('undo after enqueue failure failed', e));
      await releaseJobHolds(d, job).catch((e: unknown) => d.onError('undo after enqueue failure failed', e));
      await d.jobStore.update(jobId, { status: 'failed', error: 'The job could not be queued', completedAt: d.now().toISOString() }).catch(() => false);
      throw new AppError('unavailable', ErrorMessages.serviceUnavailable, {}, { 'Retry-After': '5' });
    }
    return { job, quota: reservation.state, outcome: 'generated' };
  },
});

export type UpscaleService = ReturnType<typeof createUpscaleService>;
