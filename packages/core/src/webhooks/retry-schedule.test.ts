import { DEFAULT_WEBHOOK_ATTEMPTS, DEFAULT_WEBHOOK_BACKOFF_MS, webhookAttemptOffsets } from './retry-schedule';

const HOUR = 3600_000;

describe('webhookAttemptOffsets', () => {
  it.each([
    [1, 1000, [0]],
    [3, 50, [0, 50, 150]],
    [4, 1000, [0, 1000, 3000, 7000]],
  ])('%i attempts from %i ms: %j', (attempts, backoffMs, expected) => {
    expect(webhookAttemptOffsets(attempts, backoffMs)).toEqual(expected);
  });

  it('the defaults retry for about a day: the last attempt 22 to 24 hours after the first', () => {
    const offsets = webhookAttemptOffsets(DEFAULT_WEBHOOK_ATTEMPTS, DEFAULT_WEBHOOK_BACKOFF_MS);
    expect(offsets).toHaveLength(13);
    expect(offsets[1]).toBe(20_000);
    expect(offsets[12]).toBe(81_900_000);
    expect(offsets[12]).toBeGreaterThan(22 * HOUR);
    expect(offsets[12]).toBeLessThan(24 * HOUR);
  });
});
