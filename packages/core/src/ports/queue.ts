/** Versioned, id-only payload: the job store record is the truth. */
export interface GenerationJobPayload {
  v: 1;
  jobId: string;
}

export interface JobAttempt {
  /** 1-based number of this attempt. */
  attempt: number;
  maxAttempts: number;
}

export type GenerationJobHandler = (payload: GenerationJobPayload, attempt: JobAttempt) => Promise<void>;

export interface ConsumerOptions {
  concurrency: number;
  /** Called once when a job will not be tried again (attempts exhausted or a PermanentJobError). */
  onFinalFailure: (payload: GenerationJobPayload, error: Error) => Promise<void>;
}

export interface QueueConsumer {
  /** Stops taking jobs, waits for the running ones, releases connections. */
  close(): Promise<void>;
}

export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export interface GenerationQueue {
  /** Adds a job; the queue dedupes by jobId. */
  enqueue(payload: GenerationJobPayload): Promise<void>;
  consume(handler: GenerationJobHandler, options: ConsumerOptions): QueueConsumer;
  depth(): Promise<QueueDepth>;
  close(): Promise<void>;
}

/** Thrown by a handler when retrying cannot help (bad payload, record gone). */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}
