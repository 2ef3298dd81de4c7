import { createRecentQuota } from './recent-quota';
import type { QuotaAccount } from './quota-service';

const account = (id: string): QuotaAccount => ({ id, plan: 'free', monthlyGenerations: null, quotaUsed: 0, quotaPeriodStart: new Date(0) });
const state = (used: number) => ({ used, limit: 100, resetAt: new Date(0) });

describe('createRecentQuota', () => {
  it('reads each account at most once per ttl, concurrent misses included', async () => {
    let clock = 0;
    let reads = 0;
    const recent = createRecentQuota(async () => state(++reads), { ttlMs: 1000, now: () => clock });
    const [a, b] = await Promise.all([recent(account('x')), recent(account('x'))]);
    expect([a.used, b.used]).toEqual([1, 1]);
    clock = 999;
    expect((await recent(account('x'))).used).toBe(1);
    expect((await recent(account('y'))).used).toBe(2);
    clock = 1001;
    expect((await recent(account('x'))).used).toBe(3);
  });

  it('does not remember a failed read', async () => {
    let fail = true;
    const recent = createRecentQuota(async () => {
      if (fail) throw new Error('database down');
      return state(7);
    });
    await expect(recent(account('x'))).rejects.toThrow('database down');
    fail = false;
    expect((await recent(account('x'))).used).toBe(7);
  });
});
