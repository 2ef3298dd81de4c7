import { ErrorMessages, type GenerationRequest } from '@promptpix/contracts';
import { AppError } from '../errors';
import type { SingleFlight } from '../ports/coordination';
import type { GenerationQueue } from '../ports/queue';
import type { JobRecord, JobStore } from '../ports/job-store';
import type { Storage } from '../ports/storage';
import { quotaHeaders, type QuotaState } from '../quota';
import { cacheKeyOf, decideFromCache, flightKeyOf, type CacheKey, type CachedImage } from '../render-cache';
import type { EventRecorder } from './event-recorder';
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
  storage: Pick<Storage, 'publicUrl'>;
  events: EventRecorder;
  now: () => Date;
  newId: () => string;
  onError: (message: string, error: unknown) => void;
}

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

  async function fromCache(account: QuotaAccount, request: GenerationRequest, candidates: CachedImage[]): Promise<Started | null> {
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
      });
      await d.jobStore.create(job, JOB_TTL_SECONDS);
      d.events.record({ accountId: account.id, eventType: 'cache_hit', imageId: decision.image.id, metadata: { jobId: job.jobId } });
      return { job, quota, outcome: 'cached' };
    }
    const job = newRecord(account.id, request, { deriveFrom: decision.source.id });
    await enqueue(job, async () => undefined);
    d.events.record({ accountId: account.id, eventType: 'cache_hit', imageId: decision.source.id, metadata: { jobId: job.jobId, derived: true } });
    return { job, quota, outcome: 'derived' };
  }

  async function generate(account: QuotaAccount, request: GenerationRequest, key: CacheKey): Promise<Started> {
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

    const reservation = await d.quota.reserve(account).catch(async (error) => {
      await d.singleFlight.release(flightKey, jobId);
      throw error;
    });
    if (!reservation.ok) {
      await d.singleFlight.release(flightKey, jobId);
      const { used, limit, resetAt } = reservation.state;
      throw new AppError('quota_exceeded', ErrorMessages.quotaExceeded, { used, limit, resetAt: resetAt.toISOString() }, quotaHeaders(reservation.state));
    }
    const job: JobRecord = {
      ...newRecord(account.id, request, { quotaCharged: true, quotaPeriodStart: reservation.periodStart.toISOString(), flightKey }),
      jobId,
    };
    await enqueue(job, async () => {
      await d.quota.refund(account.id, reservation.periodStart);
      await d.singleFlight.release(flightKey, jobId);
    });
    return { job, quota: reservation.state, outcome: 'generated' };
  }

  /** Like start, with the cache key's stored images already read (embed reads a batch in one query). */
  async function startWithCandidates(account: QuotaAccount, request: GenerationRequest, candidates: CachedImage[]): Promise<Started> {
    return (await fromCache(account, request, candidates)) ?? generate(account, request, cacheKeyOf(account.id, request));
  }

  return {
    async start(account: QuotaAccount, request: GenerationRequest): Promise<Started> {
      return startWithCandidates(account, request, await d.cache.findCached(cacheKeyOf(account.id, request)));
    },
    startWithCandidates,
  };
};

export type GenerationService = ReturnType<typeof createGenerationService>;
