import { ErrorMessages, type GenerationRequest } from '@promptpix/contracts';
import { AppError } from '../errors';
import type { ActiveJobs, JobAdmission, SingleFlight } from '../ports/coordination';
import type { GenerationQueue } from '../ports/queue';
import type { JobRecord, JobStore } from '../ports/job-store';
import type { Storage } from '../ports/storage';
import { quotaHeaders, type QuotaState } from '../quota';
import { cacheKeyOf, decideFromCache, flightKeyOf, type CacheKey, type CachedImage } from '../render-cache';
import type { EventRecorder } from './event-recorder';
import { releaseJobHolds } from './job-holds';
import type { WebhookNotifier } from './webhook-notifier';
import type { QuotaAccount, QuotaService, Reservation } from './quota-service';

export const JOB_TTL_SECONDS = 3600;

/** The images stored under one cache key (originals and variants), in one query. */
export interface RenderCacheStore {
  findCached(key: CacheKey): Promise<CachedImage[]>;
  /**
   * The same images and, only when there are none, a quota unit reserved in the window
   * `periodStart` under `limit`, in one statement: `reservedUsed` is the new used, or null.
   */
  findCachedOrReserve(key: CacheKey, quota: { periodStart: Date; limit: number }): Promise<{ images: CachedImage[]; reservedUsed: number | null }>;
}

export interface GenerationServiceDeps {
  jobStore: JobStore;
  queue: GenerationQueue;
  quota: QuotaService;
  cache: RenderCacheStore;
  singleFlight: SingleFlight;
  activeJobs: ActiveJobs;
  admission: JobAdmission;
  storage: Pick<Storage, 'publicUrl'>;
  events: EventRecorder;
  webhooks: Pick<WebhookNotifier, 'jobFinished' | 'subscribe'>;
  now: () => Date;
  newId: () => string;
  onError: (message: string, error: unknown) => void;
}

/** Who asks: the key whose cap on jobs in progress applies. Without one (operator tasks), no cap. */
export interface Caller {
  keyId: string;
  activeJobLimit: number;
}

/** Who asks, and what else the jobs a start creates carry. */
export interface StartOptions {
  caller?: Caller;
  /** Where to POST the job when it completes or fails. */
  webhookUrl?: string;
  /** Cancel-After deadline (ISO) of work this start creates; a joined job or a cache hit keeps none. */
  cancelAt?: string;
  /**
   * Permalinks the image of work this start creates joins when the worker saves it (a dashboard
   * regenerate). A cache hit's or a joined job's image is the caller's to add.
   */
  addToPermalinks?: string[];
}

/** How long a caller waits before trying again when its key has too many jobs in progress. */
export const ACTIVE_JOBS_RETRY_MS = 2000;

export type StartOutcome = 'cached' | 'derived' | 'joined' | 'generated';

export interface Started {
  job: JobRecord;
  quota: QuotaState;
  outcome: StartOutcome;
}

/**
 * Starting a generation (DECISIONS, "Generation, caching, jobs"):
 * 1. the account's render cache serves an identical image at once (a job completed on creation);
 * 2. another size/format of a cached image is derived by a worker, never regenerated;
 * 3. an identical request already in flight is joined (one generation, one quota unit);
 * 4. otherwise a quota unit is reserved and a fresh generation queued.
 * Only 4 costs quota. A queue or job-store failure refunds the unit and answers 503.
 *
 * A fresh generation's wire (docs/architecture.md, "Starting a job"): one SQL statement reads the
 * cache and reserves the unit, one JobAdmission call joins/caps/claims/records, one queue add.
 * The unit is reserved before the flight is known, so a request that ends up joining gives it back.
 */
export const createGenerationService = (d: GenerationServiceDeps) => {
  const tooManyActiveJobs = () =>
    new AppError('rate_limited', ErrorMessages.tooManyActiveJobs, { retryAfterMs: ACTIVE_JOBS_RETRY_MS }, { 'Retry-After': String(ACTIVE_JOBS_RETRY_MS / 1000) });

  /**
   * Writes the job's record under the caller's cap (the record's `activeSlot` lets the worker give
   * the slot back) and, with a flight key, claims it; or finds the identical job to join.
   */
  const open = (job: JobRecord, caller: Caller | undefined, flightKey?: string) =>
    d.admission.open({ job, ttlSeconds: JOB_TTL_SECONDS, nowMs: d.now().getTime(), flightKey, cap: caller && { bucket: caller.keyId, limit: caller.activeJobLimit } });

  const slotOf = (caller: Caller | undefined): Partial<JobRecord> => (caller ? { activeSlot: caller.keyId } : {});


  const newRecord = (accountId: string, request: GenerationRequest, extra: Partial<JobRecord>): JobRecord => ({
    jobId: d.newId(),
    accountId,
    status: 'queued',
    createdAt: d.now().toISOString(),
    request,
    ...extra,
  });

  /** Queues a job whose record is written. */
  async function enqueue(job: JobRecord, undo: () => Promise<void>): Promise<void> {
    try {
      await d.queue.enqueue({ v: 1, jobId: job.jobId });
    } catch (error) {
      d.onError('could not enqueue a job', error);
      await undo().catch((e) => d.onError('undo after enqueue failure failed', e));
      await d.jobStore.update(job.jobId, { status: 'failed', error: 'The job could not be queued', completedAt: d.now().toISOString() }).catch(() => false);
      throw new AppError('unavailable', ErrorMessages.serviceUnavailable, {}, { 'Retry-After': '5' });
    }
  }

  const permalinksOf = ({ addToPermalinks }: StartOptions): Partial<JobRecord> => (addToPermalinks && addToPermalinks.length > 0 ? { addToPermalinks } : {});

  async function fromCache(account: QuotaAccount, request: GenerationRequest, candidates: CachedImage[], options: StartOptions): Promise<Started | null> {
    const { caller, webhookUrl, cancelAt } = options;
    const decision = decideFromCache(candidates, request);
    if (decision.kind === 'miss') return null;
    const quota = await d.quota.peek(account);
    if (decision.kind === 'exact') {
      const now = d.now().toISOString();
      const job = newRecord(account.id, request, {
        status: 'completed',
        completedAt: now,
        imageId: decision.image.id,
        imageUrl: d.storage.publicUrl(decision.image.storageKey),
        seed: decision.image.seed,
        ...(webhookUrl && { webhookUrl }),
      });
      await d.jobStore.create(job, JOB_TTL_SECONDS);
      d.events.record({ accountId: account.id, eventType: 'cache_hit', imageId: decision.image.id, metadata: { jobId: job.jobId } });
      return { job, quota, outcome: 'cached' };
    }
    const job = newRecord(account.id, request, { deriveFrom: decision.source.id, ...slotOf(caller), ...(webhookUrl && { webhookUrl }), ...(cancelAt && { cancelAt }), ...permalinksOf(options) });
    if ((await open(job, caller)).kind === 'capped') throw tooManyActiveJobs();
    await enqueue(job, () => releaseJobHolds(d, job));
    d.events.record({ accountId: account.id, eventType: 'cache_hit', imageId: decision.source.id, metadata: { jobId: job.jobId, derived: true } });
    return { job, quota, outcome: 'derived' };
  }

  /** `reserved`: the unit the cache lookup reserved already, if it did. */
  async function generate(account: QuotaAccount, request: GenerationRequest, key: CacheKey, options: StartOptions, reserved?: Reservation): Promise<Started> {
    const { caller, webhookUrl, cancelAt } = options;
    const flightKey = flightKeyOf(key, request);
    const reservation = reserved ?? (await d.quota.reserve(account));
    if (!reservation.ok) {
      // Out of generations, but an identical generation in flight needs no unit: join it.
      const holder = await d.admission.holder(flightKey);
      if (holder) return { job: holder, quota: reservation.state, outcome: 'joined' };
      const { used, limit, resetAt } = reservation.state;
      throw new AppError('quota_exceeded', ErrorMessages.quotaExceeded, { used, limit, resetAt: resetAt.toISOString() }, quotaHeaders(reservation.state));
    }
    const refund = () => d.quota.refund(account.id, reservation.periodStart);
    const job = newRecord(account.id, request, {
      quotaCharged: true,
      quotaPeriodStart: reservation.periodStart.toISOString(),
      flightKey,
      ...slotOf(caller),
      ...(webhookUrl && { webhookUrl }),
      ...(cancelAt && { cancelAt }),
      ...permalinksOf(options),
    });
    // The cap is checked after the quota: out of generations is the answer that matters more.
    const admission = await open(job, caller, flightKey).catch(async (error: unknown) => {
      await refund().catch((e: unknown) => d.onError('refund after a failed admission failed', e));
      throw error;
    });
    if (admission.kind !== 'opened') {
      await refund();
      if (admission.kind === 'capped') throw tooManyActiveJobs();
      return { job: admission.job, quota: await d.quota.peek(account), outcome: 'joined' };
    }
    await enqueue(job, async () => {
      await refund();
      await releaseJobHolds(d, job);
    });
    return { job, quota: reservation.state, outcome: 'generated' };
  }

  /**
   * Webhooks (README, "Webhooks"): a new job carries the caller's URL and the worker tells it. A
   * cache hit's job is finished already; a joined job belongs to another request, so this caller
   * subscribes to it.
   */
  async function notifyWhenDone({ job, outcome }: Started, webhookUrl: string): Promise<void> {
    if (outcome === 'cached') await d.webhooks.jobFinished(job.jobId);
    else if (outcome === 'joined') await d.webhooks.subscribe(job, webhookUrl);
  }

  /** Like start, with the cache key's stored images already read (embed reads a batch in one query). */
  const startOn = async (account: QuotaAccount, request: GenerationRequest, candidates: CachedImage[], key: CacheKey, options: StartOptions): Promise<Started> =>
    (await fromCache(account, request, candidates, options)) ?? (await generate(account, request, key, options));

  async function startWithCandidates(account: QuotaAccount, request: GenerationRequest, candidates: CachedImage[], options: StartOptions = {}): Promise<Started> {
    const started = await startOn(account, request, candidates, cacheKeyOf(account.id, request), options);
    if (options.webhookUrl) await notifyWhenDone(started, options.webhookUrl);
    return started;
  }

  return {
    /** Reads the cache and, when it holds nothing under the key, reserves the unit in the same statement. */
    async start(account: QuotaAccount, request: GenerationRequest, options: StartOptions = {}): Promise<Started> {
      const key = cacheKeyOf(account.id, request);
      const claim = await d.quota.claim(account);
      const { images, reservedUsed } = await d.cache.findCachedOrReserve(key, claim);
      const reserved = reservedUsed === null ? undefined : claim.reserved(reservedUsed);
      const started = reserved ? await generate(account, request, key, options, reserved) : await startOn(account, request, images, key, options);
      if (options.webhookUrl) await notifyWhenDone(started, options.webhookUrl);
      return started;
    },
    startWithCandidates,
  };
};

export type GenerationService = ReturnType<typeof createGenerationService>;
