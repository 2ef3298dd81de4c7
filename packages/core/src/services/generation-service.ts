import { ErrorMessages, type GenerationRequest } from '@promptpix/contracts';
import { AppError } from '../errors';
import type { ActiveJobs, BudgetCounter, SingleFlight } from '../ports/coordination';
import { budgetExceededMessage, type BudgetName, type BudgetWindow } from '../publishable-budget';
import type { GenerationQueue } from '../ports/queue';
import type { JobRecord, JobStore } from '../ports/job-store';
import type { Storage } from '../ports/storage';
import { quotaExceededError, type QuotaState } from '../quota';
import { cacheKeyOf, decideFromCache, flightKeyOf, type CacheKey, type CachedImage } from '../render-cache';
import type { EventRecorder } from './event-recorder';
import { releaseJobHolds } from './job-holds';
import type { WebhookNotifier } from './webhook-notifier';
import type { QuotaAccount, QuotaService } from './quota-service';

export const JOB_TTL_SECONDS = 3600;

/** The images stored under one cache key (originals and variants), in one query. */
export interface RenderCacheStore {
  findCached(key: CacheKey): Promise<CachedImage[]>;
}

export interface GenerationServiceDeps {
  jobStore: JobStore;
  queue: GenerationQueue;
  quota: QuotaService;
  cache: RenderCacheStore;
  singleFlight: SingleFlight;
  activeJobs: ActiveJobs;
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
 * 2. another size/format of a cached image is derived by a worker, never regenerated;
 * 3. an identical request already in flight is joined (one generation, one quota unit);
 * 4. otherwise a quota unit is reserved and a fresh generation queued.
 * Only 4 costs quota. A queue or job-store failure refunds the unit and answers 503.
 */
export const createGenerationService = (d: GenerationServiceDeps) => {
  /** Takes a slot of the caller's cap for `jobId`; the record's `activeSlot` lets the worker give it back. */
  async function admit(caller: Caller | undefined, jobId: string): Promise<Partial<JobRecord>> {
    if (!caller) return {};
    const { admitted } = await d.activeJobs.admit(caller.keyId, jobId, caller.activeJobLimit, JOB_TTL_SECONDS, d.now().getTime());
    if (!admitted) {
      throw new AppError('rate_limited', ErrorMessages.tooManyActiveJobs, { retryAfterMs: ACTIVE_JOBS_RETRY_MS }, { 'Retry-After': String(ACTIVE_JOBS_RETRY_MS / 1000) });
    }
    return { activeSlot: caller.keyId };
  }


  /**
   * A publishable key's limits, before the quota so a refused generation costs nothing: a
   * refusal, or one unit from each budget window (one round trip), given back if the generation
   * does not start after all.
   */
  async function spendFreshLimits(fresh: FreshLimits | undefined): Promise<{ giveBack(): Promise<void> }> {
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

  const newRecord = (accountId: string, request: GenerationRequest, extra: Partial<JobRecord>): JobRecord => ({
    jobId: d.newId(),
    accountId,
    status: 'queued',
    createdAt: d.now().toISOString(),
    request,
    ...extra,
  });

  async function enqueue(job: JobRecord, undo: () => Promise<void>): Promise<void> {
    try {
      await d.jobStore.create(job, JOB_TTL_SECONDS);
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
    const jobId = d.newId();
    const job: JobRecord = { ...newRecord(account.id, request, { deriveFrom: decision.source.id, ...(await admit(caller, jobId)), ...(webhookUrl && { webhookUrl }), ...(cancelAt && { cancelAt }), ...permalinksOf(options) }), jobId };
    await enqueue(job, () => releaseJobHolds(d, job));
    d.events.record({ accountId: account.id, eventType: 'cache_hit', imageId: decision.source.id, metadata: { jobId: job.jobId, derived: true } });
    return { job, quota, outcome: 'derived' };
  }

  async function generate(account: QuotaAccount, request: GenerationRequest, key: CacheKey, options: StartOptions): Promise<Started> {
    const { caller, webhookUrl, cancelAt } = options;
    const flightKey = flightKeyOf(key, request);
    const jobId = d.newId();
    // Join an identical generation in flight. Its holder may still be between claiming the key
    // and writing the job record, so a missing record is waited for briefly before taking over.
    for (let attempt = 0; ; attempt++) {
      const holder = await d.singleFlight.claim(flightKey, jobId, JOB_TTL_SECONDS);
      if (holder === null) break;
      const joined = await d.jobStore.get(holder);
      if (joined && joined.status !== 'failed') return { job: joined, quota: await d.quota.peek(account), outcome: 'joined' };
      if (attempt >= 40) throw new AppError('unavailable', ErrorMessages.serviceUnavailable, {}, { 'Retry-After': '1' });
      if (joined || attempt >= 20) await d.singleFlight.release(flightKey, holder);
      else await new Promise((r) => setTimeout(r, 25));
    }

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
    // After the quota: out of generations is the answer that matters more, and the cap is rarely hit.
    const slot = await admit(caller, jobId).catch(async (error) => {
      await budget.giveBack();
      await d.quota.refund(account.id, reservation.periodStart);
      await d.singleFlight.release(flightKey, jobId);
      throw error;
    });
    const job: JobRecord = {
      ...newRecord(account.id, request, {
        quotaCharged: true,
        quotaPeriodStart: reservation.periodStart.toISOString(),
        flightKey,
        ...slot,
        ...(webhookUrl && { webhookUrl }),
        ...(cancelAt && { cancelAt }),
        ...permalinksOf(options),
      }),
      jobId,
    };
    await enqueue(job, async () => {
      await budget.giveBack();
      await d.quota.refund(account.id, reservation.periodStart);
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
  async function startWithCandidates(account: QuotaAccount, request: GenerationRequest, candidates: CachedImage[], options: StartOptions = {}): Promise<Started> {
    const started = (await fromCache(account, request, candidates, options)) ?? (await generate(account, request, cacheKeyOf(account.id, request), options));
    if (options.webhookUrl) await notifyWhenDone(started, options.webhookUrl);
    return started;
  }

  return {
    async start(account: QuotaAccount, request: GenerationRequest, options: StartOptions = {}): Promise<Started> {
      return startWithCandidates(account, request, await d.cache.findCached(cacheKeyOf(account.id, request)), options);
    },
    startWithCandidates,
  };
};

export type GenerationService = ReturnType<typeof createGenerationService>;
