/** Versioned, id-only payload: the job store record is the truth. */
export interface GenerationJobPayload {
  v: 1;
  jobId: string;
}

export interface JobAttempt {
  /** 1-based number of this attempt. */
  attempt: number;
  maxAttempts: number;
  /**
   * Aborted when this worker is shutting down and its grace period is over: the handler stops
   * (throws), and the job goes back to the queue for another worker without spending an attempt.
   * Absent where the queue cannot hand jobs back (the embedded one).
   */
  handBack?: AbortSignal;
  /**
   * With `ConsumerOptions.holdTurnUntilStarted`, the handler calls this once the job will not be
   * deferred (its model's backend admitted it): from then on it holds its slot, and the queue gives
   * the job's group its next turn. Until then the group's later jobs wait behind it, so a group
   * whose backend is full keeps one job cycling through the delayed set rather than all of them.
   * Called for the handler when it returns or throws anything but a JobDeferredError.
   */
  started?: () => void;
}

export type GenerationJobHandler = (payload: GenerationJobPayload, attempt: JobAttempt) => Promise<void>;

export interface ConsumerOptions {
  concurrency: number;
  /**
   * A taken job keeps its group's turn until it calls `JobAttempt.started` (or ends), instead of
   * passing it on as soon as a worker takes it. For handlers that may defer their job (default false).
   */
  holdTurnUntilStarted?: boolean;
  /** Called once when a job will not be tried again (attempts exhausted or a PermanentJobError). */
  onFinalFailure: (payload: GenerationJobPayload, error: Error) => Promise<void>;
  /**
   * On close, how long running jobs may go on before they are handed back (see `JobAttempt.handBack`).
   * Unset: close waits for them however long they take.
   */
  shutdownGraceMs?: number;
  /** Called for each job handed back to the queue at shutdown. */
  onHandedBack?: (payload: GenerationJobPayload) => void;
}

export interface QueueConsumer {
  /** Stops taking jobs, waits for the running ones, releases connections. */
  close(): Promise<void>;
}

export interface QueueDepth {
  /** Every job waiting for a worker, whatever its place in the fair order. */
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  /** Fairness groups (accounts) with at least one job waiting. */
  groupsWaiting: number;
  /** The most jobs one group has waiting. */
  largestGroupBacklog: number;
}

/** How a job joins the queue. */
export interface EnqueueOptions {
  /**
   * Its fairness group (the account). Workers take the groups' jobs in turn, round robin, and
   * each group's in the order they came: one group's backlog never becomes another's wait.
   * Jobs without a group share one.
   */
  group?: string;
}

export interface FailedJob {
  jobId: string;
  error: string;
  attemptsMade: number;
  failedAt: string | null;
}

export interface GenerationQueue {
  /** Adds a job; the queue dedupes by jobId. */
  enqueue(payload: GenerationJobPayload, options?: EnqueueOptions): Promise<void>;
  consume(handler: GenerationJobHandler, options: ConsumerOptions): QueueConsumer;
  depth(): Promise<QueueDepth>;
  /**
   * How many jobs wait ahead of this one in the fair order (0: it runs next), counting whole
   * rounds of the groups waiting now; null when it is not waiting (running, delayed for a retry,
   * finished, unknown).
   */
  position(jobId: string): Promise<number | null>;
  /** Takes a waiting (or retry-delayed) job out of the queue; false when it is running, finished or unknown. */
  remove(jobId: string): Promise<boolean>;
  /** The most recent jobs that ended failed, newest first (for operators). */
  listFailed(limit: number): Promise<FailedJob[]>;
  /** Runs a failed job again with fresh attempts; false when no such failed job is kept. */
  retryFailed(jobId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Thrown by a handler that stopped because its `JobAttempt.handBack` signal aborted. */
export class JobHandedBackError extends Error {
  override name = 'JobHandedBackError';
  constructor() {
    super('The worker is shutting down: the job goes back to the queue');
  }
}

/** Thrown by a handler when retrying cannot help (bad payload, record gone). */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/**
 * Thrown by a handler whose job cannot start yet (its model backend has as many calls in flight
 * as it may): the queue puts the job back, to be tried again after `delayMs`, without spending an
 * attempt and without holding a worker slot while it waits.
 */
export class JobDeferredError extends Error {
  override name = 'JobDeferredError';
  constructor(
    readonly delayMs: number,
    message = 'The job waits for a free call to its model backend',
  ) {
    super(message);
  }
}

/** By class or by name, so a copy of the class from another module instance still counts. */
export const isJobDeferred = (error: unknown): error is JobDeferredError =>
  error instanceof JobDeferredError ||
  (error instanceof Error && error.name === 'JobDeferredError' && typeof (error as { delayMs?: unknown }).delayMs === 'number');
