/**
 * When a webhook delivery is tried (README, "Webhooks"): at once, then after an exponential
 * backoff, retry n waiting `backoffMs * 2^(n-1)` (what both queue adapters do). Returns each
 * attempt's offset from the first, in ms. The defaults, 13 attempts from 20 s, put the last try
 * about 22.75 hours after the first.
 */
export function webhookAttemptOffsets(attempts: number, backoffMs: number): number[] {
  const offsets = [0];
  for (let retry = 1; retry < attempts; retry++) offsets.push(offsets[retry - 1] + backoffMs * 2 ** (retry - 1));
  return offsets;
}

export const DEFAULT_WEBHOOK_ATTEMPTS = 13;
export const DEFAULT_WEBHOOK_BACKOFF_MS = 20_000;
