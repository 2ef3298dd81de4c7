/**
 * Where the circuit breakers' states live: shared by every worker through Redis in production,
 * in memory embedded. Opaque strings; the rules are ../routing/circuit-breaker.ts.
 */
export interface BreakerStore {
  read(backend: string): Promise<string | null>;
  readMany(backends: readonly string[]): Promise<Array<string | null>>;
  /** Writes `next` (null: delete) only while the stored value is still `expected`; else returns what is stored. */
  swap(backend: string, expected: string | null, next: string | null): Promise<{ done: true } | { done: false; current: string | null }>;
}

export function createMemoryBreakerStore(): BreakerStore {
  const states = new Map<string, string>();
  return {
    read: async (backend) => states.get(backend) ?? null,
    readMany: async (backends) => backends.map((b) => states.get(b) ?? null),
    async swap(backend, expected, next) {
      const current = states.get(backend) ?? null;
      if (current !== expected) return { done: false, current };
      if (next === null) states.delete(backend);
      else states.set(backend, next);
      return { done: true };
    },
  };
}
