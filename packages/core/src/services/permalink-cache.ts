import type { InvalidationMessage } from '../ports/coordination';
import { choosePermalinkImage, permalinkRefererAllowed, type PermalinkCandidate } from '../permalinks';
import { createByteBoundedMap } from './byte-bounded-map';

/** The permalink cache's default share of the gateway's heap. */
export const PERMALINK_CACHE_MAX_BYTES = 3 * 2 ** 20;

export interface PermalinkForServing {
  id: string;
  accountId: string;
  images: PermalinkCandidate[];
  /** Domain lists of the account's live publishable keys. */
  publishableKeyDomains: string[][];
}

export type PermalinkDecision = { kind: 'not_found' } | { kind: 'blocked' } | { kind: 'serve'; accountId: string; image: PermalinkCandidate };

/**
 * Serving `/api/img/{handle}/{name}` from memory: the permalink's images and its account's
 * domain lists are cached for `ttlMs` and evicted at once through the invalidation bus when
 * they change (pin, unpin, reject, new permalink, key changes). The round robin position is
 * kept per process, so a hot permalink costs no database round trip.
 */
export function createPermalinkCache(o: {
  load(handle: string, name: string): Promise<PermalinkForServing | null>;
  now?: () => number;
  ttlMs?: number;
  /** At most this many bytes of names and permalinks (estimated), oldest dropped first. */
  maxBytes?: number;
}) {
  const now = o.now ?? Date.now;
  const ttlMs = o.ttlMs ?? 5_000;
  const entries = createByteBoundedMap<{ value: PermalinkForServing | null; expiresAt: number; rotation: number }>({
    maxBytes: o.maxBytes ?? PERMALINK_CACHE_MAX_BYTES,
  });
  let generation = 0;

  async function entry(handle: string, name: string) {
    const key = `${handle}/${name}`;
    const hit = entries.get(key);
    if (hit && hit.expiresAt > now()) return hit;
    const startedAt = generation;
    const value = await o.load(handle, name);
    const fresh = { value, expiresAt: now() + ttlMs, rotation: hit?.rotation ?? 0 };
    if (startedAt === generation) entries.set(key, fresh);
    return fresh;
  }

  return {
    async serve(handle: string, name: string, referer: string | undefined): Promise<PermalinkDecision> {
      const e = await entry(handle, name);
      if (!e.value) return { kind: 'not_found' };
      if (!permalinkRefererAllowed(e.value.publishableKeyDomains, referer)) return { kind: 'blocked' };
      const image = choosePermalinkImage(e.value.images, e.rotation++);
      return image ? { kind: 'serve', accountId: e.value.accountId, image } : { kind: 'not_found' };
    },

    invalidate(message: InvalidationMessage): void {
      if (message.kind !== 'permalinks' && message.kind !== 'account') return;
      generation++;
      entries.deleteWhere((e) => !e.value || e.value.accountId === message.accountId);
    },

    size: () => entries.size(),
    /** Estimated bytes held. */
    bytes: () => entries.bytes(),
  };
}

export type PermalinkCache = ReturnType<typeof createPermalinkCache>;
