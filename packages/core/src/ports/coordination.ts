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
  | { kind: 'images'; accountId: string };
