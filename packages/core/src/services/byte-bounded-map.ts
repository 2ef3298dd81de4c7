/**
 * An upper estimate of the V8 heap bytes `value` holds (64-bit, no pointer compression, as Node
 * runs): strings at their real width (1 byte a character when every one fits Latin-1, else 2),
 * headers and slots rounded up. The caches below are bounded by this instead of by an entry
 * count, because a caller chooses how large an entry is (a 2,000-character prompt in a key, 50
 * images under one key). `byte-bounded-map.test.ts` fills each cache with the largest entries a
 * caller can cause and checks the heap really grows by no more than this says.
 */
export function heapBytesOf(value: unknown, depth = 0): number {
  // Cached values are plain records a few levels deep; this only stops a cycle.
  if (depth > 16) return 1024;
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'number':
      return 16;
    case 'bigint':
      return 32;
    case 'object':
      if (value === null) return 0;
      if (value instanceof Date) return 56;
      if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + 8 + heapBytesOf(item, depth + 1), 40);
      if (value instanceof Promise) return 96;
      return Object.entries(value).reduce((sum, [k, v]) => sum + 16 + stringBytes(k) / 4 + heapBytesOf(v, depth + 1), 56);
    default:
      return 0;
  }
}

const TWO_BYTE = /[\u0100-\uffff]/;

function stringBytes(s: string): number {
  return 32 + (TWO_BYTE.test(s) ? 2 : 1) * s.length;
}

/** What one entry costs in its Map beyond its key and value (hash table slots, the entry record). */
const ENTRY_OVERHEAD_BYTES = 96;

/**
 * A string-keyed map that holds at most `maxBytes` of keys and values (by `heapBytesOf` or the
 * caller's own `sizeOf`), dropping its oldest entries to make room. An entry larger than a
 * sixteenth of the budget is not kept at all, so one caller cannot empty the cache of everyone
 * else's entries with a single huge one.
 */
export function createByteBoundedMap<V>(o: { maxBytes: number; sizeOf?: (value: V) => number }) {
  const sizeOf = o.sizeOf ?? heapBytesOf;
  const largest = o.maxBytes / 16;
  const entries = new Map<string, { value: V; bytes: number }>();
  let bytes = 0;

  const remove = (key: string) => {
    const e = entries.get(key);
    if (!e) return false;
    entries.delete(key);
    bytes -= e.bytes;
    return true;
  };

  return {
    get: (key: string): V | undefined => entries.get(key)?.value,

    /** Stores `value` as the newest entry; false when it is too large to keep. */
    set(key: string, value: V): boolean {
      remove(key);
      const size = ENTRY_OVERHEAD_BYTES + stringBytes(key) + sizeOf(value);
      if (size > largest) return false;
      while (bytes + size > o.maxBytes && entries.size > 0) remove(entries.keys().next().value as string);
      entries.set(key, { value, bytes: size });
      bytes += size;
      return true;
    },

    /** Makes an entry the newest, so eviction takes it last. */
    touch(key: string): void {
      const e = entries.get(key);
      if (!e) return;
      entries.delete(key);
      entries.set(key, e);
    },

    delete: remove,

    /** Drops every entry `drop` is true for. */
    deleteWhere(drop: (value: V, key: string) => boolean): void {
      for (const [key, e] of entries) if (drop(e.value, key)) remove(key);
    },

    size: () => entries.size,
    /** The estimated bytes held now. */
    bytes: () => bytes,
  };
}

export type ByteBoundedMap<V> = ReturnType<typeof createByteBoundedMap<V>>;
