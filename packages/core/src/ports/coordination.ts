import type { JobRecord } from './job-store';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** When refused: how long until a slot frees up. */
  retryAfterMs: number;
}

/** Sliding-window request counter shared by every gateway process. */
export interface RateLimiter {
  /** Counts one request against `bucket` if it fits in `limit` per `windowMs`, atomically. */
  hit(bucket: string, limit: number, windowMs: number, nowMs: number): Promise<RateLimitDecision>;
}

/** Lets identical concurrent requests share one piece of work (one generation per cache key). */
export interface SingleFlight {
  /** Registers `owner` for `key` unless someone holds it; returns the current holder, or null when we got it. */
  claim(key: string, owner: string, ttlSeconds: number): Promise<string | null>;
  /** Releases `key` if `owner` still holds it. */
  release(key: string, owner: string): Promise<void>;
}

/** Jobs queued or running per key, for the per-key cap (README, "Abuse limits"). */
export interface ActiveJobs {
  /**
   * Counts `jobId` against `bucket` if fewer than `limit` are active, atomically. An entry that
   * is never released (a lost job) stops counting after `ttlSeconds`.
   */
  admit(bucket: string, jobId: string, limit: number, ttlSeconds: number, nowMs: number): Promise<{ admitted: boolean; active: number }>;
  release(bucket: string, jobId: string): Promise<void>;
}

/** One fixed-window counter to take a unit from: its name carries the window. */
export interface BudgetCounterWindow {
  counter: string;
  limit: number;
  /** How long the counter is kept after its first unit. */
  ttlMs: number;
}

/** Fixed-window counters of fresh generations publishable keys start (../publishable-budget.ts). */
export interface BudgetCounter {
  /** Adds one to every counter if each is under its limit, atomically (one round trip); otherwise adds nothing and gives the index of the first full one. */
  take(windows: BudgetCounterWindow[]): Promise<{ taken: true } | { taken: false; full: number }>;
  /** Gives back the unit a `take` added (the generation did not start after all). */
  giveBack(counters: string[]): Promise<void>;
  /** Current values, 0 where absent. */
  read(counters: string[]): Promise<number[]>;
}

/** A response kept for an Idempotency-Key, to answer a retry with. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type IdempotencyBegin =
  /** First use of the key: run the request, then `finish` (or `abandon` on an error). */
  | { kind: 'started' }
  /** The key was used with the same body and finished: answer with the kept response. */
  | { kind: 'replay'; response: StoredResponse }
  /** The key was used with a different body. */
  | { kind: 'mismatch' }
  /** The same request is still running elsewhere. */
  | { kind: 'in_progress' };

/** Idempotency keys of generate (README, "Idempotent retries"), shared by every gateway process. */
export interface IdempotencyStore {
  /** Claims `key` for a request with `fingerprint` in one atomic step, or reports what holds it. */
  begin(key: string, fingerprint: string, pendingSeconds: number): Promise<IdempotencyBegin>;
  /** Keeps the response for `ttlSeconds`. */
  finish(key: string, fingerprint: string, response: StoredResponse, ttlSeconds: number): Promise<void>;
  /** Frees a claim whose request failed, so a retry runs again. */
  abandon(key: string, fingerprint: string): Promise<void>;
}

/** Tells every gateway process that cached credentials changed (key revoked, account status/plan changed). */
export interface InvalidationBus {
  publish(message: InvalidationMessage): Promise<void>;
  subscribe(handler: (message: InvalidationMessage) => void): void;
  close(): Promise<void>;
}

export type InvalidationMessage =
  | { kind: 'key'; keyId: string }
  | { kind: 'account'; accountId: string }
  /** An account's permalinks changed (images pinned, rejected or added; keys' domains changed). */
  | { kind: 'permalinks'; accountId: string }
  /** An account's images changed (a new image or variant stored, an image rejected or pinned). */
  | { kind: 'images'; accountId: string }
  /** A running job was cancelled: the worker running it stops its model call. */
  | { kind: 'job-cancelled'; jobId: string };

export interface AdmissionRequest {
  /** Written when admitted; its `jobId` takes the cap slot. */
  job: JobRecord;
  ttlSeconds: number;
  nowMs: number;
  /** The per-key cap on jobs in progress (README, "Abuse limits"). */
  cap?: { bucket: string; limit: number };
}

/**
 * The last step of starting a job: take a slot under the key's cap and write the job record, in
 * one step. Production does it in one Redis script (one round trip, atomic); the embedded shape
 * composes the in-process ports.
 */
export interface JobAdmission {
  /** 'capped' (nothing written) when the key already has `cap.limit` jobs in progress. */
  open(request: AdmissionRequest): Promise<'opened' | 'capped'>;
}
