/** Webhooks (README, "Webhooks"): the delivery log and the HTTP sender. */

export type WebhookEvent = 'completed' | 'failed';

/**
 * waiting: a caller that joined a job in flight asked to be told, the job is still running;
 * pending: queued or being retried; then delivered, failed (every attempt failed) or blocked
 * (the SSRF guard refused the address; never retried).
 */
export type WebhookDeliveryStatus = 'waiting' | 'pending' | 'delivered' | 'failed' | 'blocked';

export interface WebhookDelivery {
  /** Sent as `webhook-id` on every attempt. */
  id: string;
  accountId: string;
  jobId: string;
  event: WebhookEvent | null;
  url: string;
  /** The job as JSON, fixed when it finished. */
  body: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
}

export interface AttemptOutcome {
  status: Extract<WebhookDeliveryStatus, 'pending' | 'delivered' | 'blocked'>;
  statusCode?: number;
  error?: string;
  at: Date;
}

/** The delivery log: subscriptions, deliveries and how each attempt went. */
export interface WebhookDeliveryStore {
  /** A caller that joined job `jobId` wants `url` told when it finishes; recording the same id twice is a no-op. */
  subscribe(subscription: { id: string; accountId: string; jobId: string; url: string }): Promise<void>;
  /**
   * The job finished: adds the creator's delivery (when it asked for one; not twice) and turns the
   * job's waiting subscriptions into deliveries of this event and body. Returns the ids that became
   * pending in this call: each delivery is handed out once, however many callers claim.
   */
  claim(finished: { jobId: string; accountId: string; event: WebhookEvent; body: string; creator?: { id: string; url: string } }): Promise<string[]>;
  get(id: string): Promise<WebhookDelivery | null>;
  /** Records one attempt (counted) and where the delivery stands after it. */
  recordAttempt(id: string, outcome: AttemptOutcome): Promise<void>;
  /** No attempt is left: a pending delivery ends failed. */
  markFailed(id: string, error: string): Promise<void>;
  /** Ids of pending deliveries created since `since`, oldest first (re-queued at worker start). */
  pendingIds(since: Date, limit: number): Promise<string[]>;
  /** The account's webhook secret, made on first need. */
  secretFor(accountId: string): Promise<string>;
}

export type SendOutcome = { kind: 'response'; statusCode: number } | { kind: 'error'; message: string } | { kind: 'blocked'; reason: string };

/** POSTs one signed webhook. Never throws: every outcome is a value. */
export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendOutcome>;
}
