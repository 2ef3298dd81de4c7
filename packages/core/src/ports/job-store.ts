import type { GenerationRequest, UpscaleFactor } from '@promptpix/contracts';
import type { ModelProgress } from './model';

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed';

/** The truth about a job while it lives (one hour). The queue only carries its id. */
export interface JobRecord {
  jobId: string;
  accountId: string;
  status: JobStatus;
  createdAt: string;
  request: GenerationRequest;
  startedAt?: string;
  completedAt?: string;
  imageId?: string;
  imageUrl?: string;
  error?: string;
  /** Set when this job charged a quota unit (so a failure knows to refund it). */
  quotaCharged?: boolean;
  /** Start of the quota window the unit was charged to (ISO); a refund only applies within it. */
  quotaPeriodStart?: string;
  /** Set when the job derives another size/format from this stored image instead of calling the model. */
  deriveFrom?: string;
  /**
   * Set when the job upscales the image `deriveFrom` names (POST /api/v1/image/:id/upscale): how
   * many times larger, and the source's cache-key part (`inputKey`) its copy is stored under.
   */
  upscale?: { factor: UpscaleFactor; inputKey: string | null };
  /** Set while this derive job holds one of its original's places (MAX_DERIVED_PER_IMAGE), so a failure or a cancel while queued gives it back. */
  derivedPlace?: boolean;
  /** Single-flight key this job holds while in flight; released when it finishes. */
  flightKey?: string;
  /** Deadline from a Cancel-After header (ISO): not finished by then, the job is cancelled. */
  cancelAt?: string;
  /** The seed the image is made with: the caller's, or drawn by the first attempt and kept for the retries (callers see it once completed). */
  seed?: number;
  /** The key whose active-job slot this job holds (README, "Abuse limits"); released when it finishes. */
  activeSlot?: string;
  /** Where the caller that created the job asked to be told when it finishes (README, "Webhooks"). */
  webhookUrl?: string;
  /** Set when a caller that joined this job asked for a webhook (rows in the delivery log). */
  webhookSubscribers?: boolean;
  /** Permalinks (ids, of the job's account) the image joins once saved: a dashboard regenerate. */
  addToPermalinks?: string[];
  /** The id of the model that made the image (set when completed; docs/operating/models.md). */
  model?: string;
  /** Set when the model the request named was down and `model`, its fallback, stood in. */
  fallbackFrom?: string;
  /** How far the model call has got, as its backend last reported (throttled by the worker). */
  progress?: ModelProgress;
  /** What the model says it drew (ModelImage.revisedPrompt), set when completed by a model that says. */
  revisedPrompt?: string;
}

export type JobPatch = Partial<Omit<JobRecord, 'jobId' | 'accountId' | 'createdAt' | 'request'>>;

/**
 * What a job's model call made, kept beside its record after a later step failed (storage, the
 * database), so that the retry stores the same image instead of calling the model again.
 */
export interface RenderedImage {
  /** The encoded image, as it is to be stored. */
  data: Buffer;
  /** Its content-addressed storage key. */
  key: string;
  contentType: string;
  seed: number;
  /** The model that made it: the one the job named, or the fallback that stood in (`fallbackFrom`). */
  model: string;
  fallbackFrom?: string;
  /** What the model said it drew. */
  revisedPrompt?: string;
}

export interface JobStore {
  /** Stores a new record that expires `ttlSeconds` after creation. */
  create(record: JobRecord, ttlSeconds: number): Promise<void>;
  get(jobId: string): Promise<JobRecord | null>;
  /**
   * Merges fields into an existing record without extending its lifetime. Returns false when the
   * record is gone, or (with `ifStatus`) when its status is not one of those: the check and the
   * write are one step, so of a worker completing and a caller cancelling only one wins.
   */
  update(jobId: string, patch: JobPatch, condition?: { ifStatus: readonly JobRecord['status'][] }): Promise<boolean>;
  /** Keeps a job's rendered image beside its record until the record expires (or `dropRendered`); false when the record is gone. */
  keepRendered(jobId: string, rendered: RenderedImage): Promise<boolean>;
  /** The image kept for a job, or null. */
  rendered(jobId: string): Promise<RenderedImage | null>;
  dropRendered(jobId: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
