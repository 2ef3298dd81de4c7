/**
 * How many words the meaning adapters may read from disk per second for instant queries. A word
 * the caches have not seen costs up to about 2 ms of synchronous WordNet reads on the event loop,
 * and instant queries come from callers (a publishable key in a public page among them), so the
 * reads they can cause are a token bucket: `perSecond` tokens a second, at most `burst` saved up.
 * When it is empty a query is encoded from the words already cached; the library indexer (the
 * operator's own entries) is never limited.
 */
export interface ColdWordBudget {
  /** One cold word read: true when allowed now (and counted), false when the bucket is empty. */
  take(): boolean;
}

export const QUERY_COLD_WORDS = { perSecond: 150, burst: 1000 };

export function createColdWordBudget(
  { perSecond, burst }: { perSecond: number; burst: number } = QUERY_COLD_WORDS,
  now: () => number = () => performance.now(),
): ColdWordBudget {
  let tokens = burst;
  let last = now();
  return {
    take() {
      const at = now();
      tokens = Math.min(burst, tokens + ((at - last) / 1000) * perSecond);
      last = at;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
