import { ErrorMessages, type GenerationRequest } from '@promptpix/contracts';
import { AppError } from '../errors';
import type { ActiveJobs, BudgetCounter, JobAdmission, SingleFlight } from '../ports/coordination';
import { budgetExceededMessage, type BudgetName, type BudgetWindow } from '../publishable-budget';
import type { GenerationQueue } from '../ports/queue';
import type { JobRecord, JobStore } from '../ports/job-store';
import type { Storage } from '../ports/storage';
import { quotaExceededError, type QuotaState } from '../quota';
import { MAX_DERIVED_PER_IMAGE, cacheKeyOf, decideFromCache, flightKeyOf, type CacheKey, type CachedImage } from '../render-cache';
import { fairnessGroupOf } from '../queueing/fair-order';
import type { EventRecorder } from './event-recorder';
import { releaseJobHolds } from './job-holds';
import type { WebhookNotifier } from './webhook-notifier';
import type { QuotaAccount, QuotaService, Reservation } from './quota-service';

export const JOB_TTL_SECONDS = 3600;

/** The images stored under one cache key (originals and variants), in one query. */
export interface RenderCacheStore {
  findCached(key: CacheKey): Promise<CachedImage[]>;
  /** The images under a key when this process remembers them (no I/O), else undefined. */
  remembered(key: CacheKey): CachedImage[] | undefined;
  /**
   * The same images and, only when there are none, a quota unit reserved in the window
   * `periodStart` under `limit`, in one statement: `reservedUsed` is the new used, or null.
   */
  findCachedOrReserve(key: CacheKey, quota: { periodStart: Date; limit: number }): Promise<{ images: CachedImage[]; reservedUsed: number | null }>;
  /** Takes one of an original's places for a derived size, under `cap`, in one atomic step: false when none is left. */
  takeDerivedPlace(sourceId: string, cap: number): Promise<boolean>;
  giveBackDerivedPlace(sourceId: string): Promise<void>;
}

export interface GenerationServiceDeps {
  jobStore: JobStore;
  queue: GenerationQueue;
  quota: QuotaService;
  cache: RenderCacheStore;
  singleFlight: SingleFlight;
  activeJobs: ActiveJobs;
  admission: JobAdmission;
  /** Counters of fresh generations started through publishable keys. */
  budget: BudgetCounter;
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
  /** Limits on fresh work started through a publishable key; a cache hit, variant or join never meets them. */
  fresh?: FreshLimits;
}

/** Units taken from a publishable key's budgets, to give back if the generation does not start. */
interface FreshSpent {
  giveBack(): Promise<void>;
}

/** What a publishable key may start (../publishable-budget.ts), checked only where a fresh generation would start. */
export interface FreshLimits {
  /** Set when this request may not start fresh work at all (an unsigned prompt on a signed-mode key): the error. */
  refusal?: string;
  windows: BudgetWindow[];
  /** A budget refused the generation (the owner's view; never throws). */
  onExceeded(name: BudgetName): void;
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
 * 2. another size/format of a cached image is derived by a worker, never regenerated, while its
 *    original has a place left (MAX_DERIVED_PER_IMAGE, taken atomically in the store); past that,
 *    a fresh generation;
 * 3. an identical request already in flight is joined (one generation, one quota unit);
 * 4. otherwise a quota unit is reserved and a fresh generation queued.
 * Only 4 costs quota. A queue or job-store failure refunds the unit and answers 503.
 *
 * A fresh generation's wire (docs/architecture.md, "Starting a job"): the flight claim, one SQL
 * statement that reads the cache and reserves the unit, one JobAdmission call (cap slot and job
 * record), one queue add. The claim comes before the lookup so that an identical job cannot
 * finish unseen between them, and before the reservation so that a joiner never takes a unit.
 */
export const createGenerationService = (d: GenerationServiceDeps) => {
  const tooManyActiveJobs = () =>
    new AppError(
      'rate_limited',
      ErrorMessages.tooManyActiveJobs,
      { retryAfterMs: ACTIVE_JOBS_RETRY_MS },
      { 'Retry-After': String(ACTIVE_JOBS_RETRY_MS / 1000) },
    );

  /** Writes the job's record under the caller's cap (the record's `activeSlot` lets the worker give the slot back). */
  const open = (job: JobRecord, caller: Caller | undefined) =>
    d.admission.open({ job, ttlSeconds: JOB_TTL_SECONDS, nowMs: d.now().getTime(), cap: caller && { bucket: caller.keyId, limit: caller.activeJobLimit } });

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
      // The account (and model) is the job's fairness group: its backlog never becomes another account's wait.
      await d.queue.enqueue({ v: 1, jobId: job.jobId }, { group: fairnessGroupOf(job.accountId, job.request.model) });
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
        ...(decision.image.revisedPrompt && { revisedPrompt: decision.image.revisedPrompt }),
        ...(webhookUrl && { webhookUrl }),
      });
      await d.jobStore.create(job, JOB_TTL_SECONDS);
      d.events.record({ accountId: account.id, eventType: 'cache_hit', imageId: decision.image.id, metadata: { jobId: job.jobId } });
      return { job, quota, outcome: 'cached' };
    }
    const sourceId = decision.source.id;
    // Concurrent requests may all have read a free place: the store's count decides, and a request
    // that finds none left goes on as a fresh (charged) generation.
    if (!(await d.cache.takeDerivedPlace(sourceId, MAX_DERIVED_PER_IMAGE))) return null;
    const giveBackPlace = () => d.cache.giveBackDerivedPlace(sourceId);
    const job = newRecord(account.id, request, {
      deriveFrom: sourceId,
      derivedPlace: true,
      ...slotOf(caller),
      ...(webhookUrl && { webhookUrl }),
      ...(cancelAt && { cancelAt }),
      ...permalinksOf(options),
    });
    const admitted = await open(job, caller).catch(async (error: unknown) => {
      await giveBackPlace().catch((e: unknown) => d.onError('undo after a failed admission failed', e));
      throw error;
    });
    if (admitted === 'capped') {
      await giveBackPlace();
      throw tooManyActiveJobs();
    }
    await enqueue(job, async () => {
      await giveBackPlace();
      await releaseJobHolds(d, job);
    });
    d.events.record({ accountId: account.id, eventType: 'cache_hit', imageId: decision.source.id, metadata: { jobId: job.jobId, derived: true } });
    return { job, quota, outcome: 'derived' };
  }

  /**
   * Claims `flightKey` for `jobId`, or returns the live job holding it. Its holder may still be
   * between claiming the key and writing the job record, so a missing record is waited for
   * briefly before taking over.
   */
  async function claimOrJoin(flightKey: string, jobId: string): Promise<JobRecord | null> {
    for (let attempt = 0; ; attempt++) {
      const holder = await d.singleFlight.claim(flightKey, jobId, JOB_TTL_SECONDS);
      if (holder === null) return null;
      const joined = await d.jobStore.get(holder);
      if (joined && joined.status !== 'failed') return joined;
      if (attempt >= 40) throw new AppError('unavailable', ErrorMessages.serviceUnavailable, {}, { 'Retry-After': '1' });
      if (joined || attempt >= 20) await d.singleFlight.release(flightKey, holder);
      else await new Promise((r) => setTimeout(r, 25));
    }
  }

  /**
   * A publishable key's limits, before the quota so a refused generation costs nothing: a
   * refusal, or one unit from each budget window (one round trip), given back if the generation
   * does not start after all.
   */
  async function spendFreshLimits(fresh: FreshLimits | undefined): Promise<FreshSpent> {
    if (!fresh) return { giveBack: async () => {} };
    if (fresh.refusal) throw new AppError('forbidden', fresh.refusal);
    const taken = await d.budget.take(fresh.windows);
    if (!taken.taken) {
      const name = fresh.windows[taken.full].name;
      fresh.onExceeded(name);
      throw new AppError('rate_limited', budgetExceededMessage(name));
    }
    return { giveBack: () => d.budget.giveBack(fresh.windows.map((w) => w.counter)).catch((e) => d.onError('could not give back a budget unit', e)) };
  }

  const joinedJob = async (account: QuotaAccount, job: JobRecord): Promise<Started> => ({ job, quota: await d.quota.peek(account), outcome: 'joined' });

  /** With the flight claimed and the unit reserved: the cap slot and the record, then the queue. */
  async function admitAndQueue(
    account: QuotaAccount,
    request: GenerationRequest,
    options: StartOptions,
    flightKey: string,
    jobId: string,
    reservation: Reservation & { ok: true },
    budget: FreshSpent,
  ): Promise<Started> {
    const { caller, webhookUrl, cancelAt } = options;
    const giveBack = async () => {
      await budget.giveBack();
      await d.quota.refund(account.id, reservation.periodStart);
      await d.singleFlight.release(flightKey, jobId);
    };
    const job: JobRecord = {
      ...newRecord(account.id, request, {
        quotaCharged: true,
        quotaPeriodStart: reservation.periodStart.toISOString(),
        flightKey,
        ...slotOf(caller),
        ...(webhookUrl && { webhookUrl }),
        ...(cancelAt && { cancelAt }),
        ...permalinksOf(options),
      }),
      jobId,
    };
    // After the quota: out of generations is the answer that matters more, and the cap is rarely hit.
    const admitted = await open(job, caller).catch(async (error: unknown) => {
      await giveBack().catch((e: unknown) => d.onError('undo after a failed admission failed', e));
      throw error;
    });
    if (admitted === 'capped') {
      await giveBack();
      throw tooManyActiveJobs();
    }
    await enqueue(job, async () => {
      await budget.giveBack();
      await d.quota.refund(account.id, reservation.periodStart);
      await releaseJobHolds(d, job);
    });
    return { job, quota: reservation.state, outcome: 'generated' };
  }

  async function generate(account: QuotaAccount, request: GenerationRequest, key: CacheKey, options: StartOptions): Promise<Started> {
    const flightKey = flightKeyOf(key, request);
    const jobId = d.newId();
    const joined = await claimOrJoin(flightKey, jobId);
    if (joined) return joinedJob(account, joined);
    const budget = await spendFreshLimits(options.fresh).catch(async (error) => {
      await d.singleFlight.release(flightKey, jobId);
      throw error;
    });
    const reservation = await d.quota.reserve(account).catch(async (error) => {
      await budget.giveBack();
      await d.singleFlight.release(flightKey, jobId);
      throw error;
    });
    if (!reservation.ok) {
      await budget.giveBack();
      await d.singleFlight.release(flightKey, jobId);
      throw quotaExceededError(reservation.state);
    }
    return admitAndQueue(account, request, options, flightKey, jobId, reservation, budget);
  }

  /**
   * A key this process does not remember: claim the flight first, then read the cache and reserve
   * the unit in one statement. When the key has images (or the statement reserved nothing: quota
   * used up, window moved on), the claim is given back and the ordinary path decides.
   */
  async function startCold(account: QuotaAccount, request: GenerationRequest, key: CacheKey, options: StartOptions): Promise<Started> {
    const flightKey = flightKeyOf(key, request);
    const jobId = d.newId();
    const joined = await claimOrJoin(flightKey, jobId);
    if (joined) return joinedJob(account, joined);
    const claim = await d.quota.claim(account);
    const found = await d.cache.findCachedOrReserve(key, claim).catch(async (error) => {
      await d.singleFlight.release(flightKey, jobId);
      throw error;
    });
    if (found.reservedUsed !== null) {
      const reservation = claim.reserved(found.reservedUsed);
      // Here the unit is reserved first (one statement with the lookup); a refused budget gives it back.
      const budget = await spendFreshLimits(options.fresh).catch(async (error) => {
        await d.quota.refund(account.id, reservation.periodStart);
        await d.singleFlight.release(flightKey, jobId);
        throw error;
      });
      return admitAndQueue(account, request, options, flightKey, jobId, reservation, budget);
    }
    await d.singleFlight.release(flightKey, jobId);
    return startOn(account, request, found.images, key, options);
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
  const startOn = async (
    account: QuotaAccount,
    request: GenerationRequest,
    candidates: CachedImage[],
    key: CacheKey,
    options: StartOptions,
  ): Promise<Started> => (await fromCache(account, request, candidates, options)) ?? (await generate(account, request, key, options));

  async function startWithCandidates(
    account: QuotaAccount,
    request: GenerationRequest,
    candidates: CachedImage[],
    options: StartOptions = {},
  ): Promise<Started> {
    const started = await startOn(account, request, candidates, cacheKeyOf(account.id, request), options);
    if (options.webhookUrl) await notifyWhenDone(started, options.webhookUrl);
    return started;
  }

  return {
    /** From remembered images, or (a cold key) the flight claimed and the cache read with the unit reserved. */
    async start(account: QuotaAccount, request: GenerationRequest, options: StartOptions = {}): Promise<Started> {
      const key = cacheKeyOf(account.id, request);
      const remembered = d.cache.remembered(key);
      const started = remembered ? await startOn(account, request, remembered, key, options) : await startCold(account, request, key, options);
      if (options.webhookUrl) await notifyWhenDone(started, options.webhookUrl);
      return started;
    },
    startWithCandidates,
  };
};

export type GenerationService = ReturnType<typeof createGenerationService>;
