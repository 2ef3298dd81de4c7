import type { GenerationRequest } from '@promptpix/contracts';

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
  /** Single-flight key this job holds while in flight; released when it finishes. */
  flightKey?: string;
}

export type JobPatch = Partial<Omit<JobRecord, 'jobId' | 'accountId' | 'createdAt' | 'request'>>;

export interface JobStore {
  /** Stores a new record that expires `ttlSeconds` after creation. */
  create(record: JobRecord, ttlSeconds: number): Promise<void>;
  get(jobId: string): Promise<JobRecord | null>;
  /** Merges fields into an existing record without extending its lifetime. Returns false when the record is gone. */
  update(jobId: string, patch: JobPatch): Promise<boolean>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
