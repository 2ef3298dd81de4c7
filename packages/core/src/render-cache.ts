import { createHash } from 'node:crypto';
import type { GenerationRequest } from '@promptpix/contracts';
import { normalizePrompt } from './prompts';

/** What makes two requests "the same image" for an account (DECISIONS: render cache). */
export interface CacheKey {
  accountId: string;
  normalizedPrompt: string;
  style: string | null;
  characterId: string | null;
  ageBucket: string | null;
  /** The seed the caller chose; null (not given) matches an image of any seed. */
  seed: number | null;
  /** What the image should not show (normalised like the prompt); null when not given. */
  negativePrompt: string | null;
  /** The model id when not the default (null): an image of one model is no cache hit for another. */
  model: string | null;
  /**
   * What the image is made from besides the text (`inputKeyOf`): an edit's inputs, mask and
   * strength, a background asked for; null for a plain generation, so none of those matches one.
   */
  inputKey: string | null;
}

/**
 * The part of the cache key an edit or a background adds: a digest of the inputs' and mask's
 * content hashes (in order), the strength of an edit, and the background; null when the request
 * has none of them (a plain generation, as every image made before edits existed). Content hashes,
 * not ids: the same bytes uploaded again are the same edit.
 */
export function inputKeyOf(request: Pick<GenerationRequest, 'edit' | 'background'> & { strength?: number }): string | null {
  const { edit } = request;
  const background = request.background ?? 'auto';
  if (!edit && background === 'auto') return null;
  const parts = edit ? [edit.images.map((i) => i.sha256), edit.mask?.sha256 ?? null, request.strength ?? 1, background] : [null, null, null, background];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}

export const cacheKeyOf = (
  accountId: string,
  request: Pick<GenerationRequest, 'prompt' | 'style' | 'character' | 'ageBucket' | 'seed' | 'negativePrompt' | 'model' | 'edit' | 'background'> & {
    strength?: number;
  },
): CacheKey => ({
  accountId,
  normalizedPrompt: normalizePrompt(request.prompt),
  style: request.style ?? null,
  // PostgreSQL hands uuids back in lower case; a caller may send them in upper case.
  characterId: request.character?.toLowerCase() ?? null,
  ageBucket: request.ageBucket ?? null,
  seed: request.seed ?? null,
  negativePrompt: request.negativePrompt === undefined ? null : normalizePrompt(request.negativePrompt),
  model: request.model ?? null,
  inputKey: inputKeyOf(request),
});

/**
 * A cache key as one string, for maps keyed by it. Validated text never holds NUL, so NUL
 * separates the parts and \u0001 stands for a missing one.
 */
export const cacheKeyString = (k: CacheKey): string =>
  `${k.accountId}\0${k.normalizedPrompt}\0${k.style ?? '\u0001'}\0${k.characterId ?? '\u0001'}\0${k.ageBucket ?? '\u0001'}\0${k.seed ?? '\u0001'}\0${k.negativePrompt ?? '\u0001'}\0${k.model ?? '\u0001'}\0${k.inputKey ?? '\u0001'}`;

/** Short stable id of a cache key plus variant, for single-flight keys. */
export const flightKeyOf = (key: CacheKey, variant: Variant): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        key.accountId,
        key.normalizedPrompt,
        key.style,
        key.characterId,
        key.ageBucket,
        key.seed,
        key.negativePrompt,
        key.model,
        key.inputKey,
        variant.width,
        variant.height,
        variant.format,
      ]),
    )
    .digest('base64url');

export interface Variant {
  width: number;
  height: number;
  format: string;
}

export interface CachedImage extends Variant {
  id: string;
  storageKey: string;
  sourceImageId: string | null;
  rejected: boolean;
  createdAt: Date;
  /** The seed it was made with (reported on the job that serves it). */
  seed: number;
  /** An original's places taken under MAX_DERIVED_PER_IMAGE when it was read (the store's count decides). */
  derivedSizes: number;
  /** What the model said it drew (reported on the job that serves it); null when it did not say. */
  revisedPrompt?: string | null;
}

/** A cached image with the key it is stored under (one batch read returns several keys' images). */
export type CachedImageWithKey = CachedImage & Omit<CacheKey, 'accountId' | 'seed'>;

/** The keys a stored image answers to: its own seed's, and the key with no seed given. */
export const cacheKeysOfRow = (accountId: string, row: CachedImageWithKey): [CacheKey, CacheKey] => {
  const base = {
    accountId,
    normalizedPrompt: row.normalizedPrompt,
    style: row.style,
    characterId: row.characterId,
    ageBucket: row.ageBucket,
    negativePrompt: row.negativePrompt,
    model: row.model,
    inputKey: row.inputKey,
  };
  return [
    { ...base, seed: null },
    { ...base, seed: row.seed },
  ];
};

export type CacheDecision<T extends CachedImage> = { kind: 'exact'; image: T } | { kind: 'derive'; source: T } | { kind: 'miss' };

/**
 * Sizes/formats derived free (and stored) from one original. A derivation costs the caller nothing
 * but costs the service an encode and a stored file, so a stranger asking for every width from
 * 256 to 2048 gets this many; a further new size is a fresh generation, charged like any other.
 */
export const MAX_DERIVED_PER_IMAGE = 24;

/**
 * Whether an original whose derivations hold `taken` places may give one more. The store applies
 * the same rule in one conditional statement (take a place only while fewer are taken), so
 * concurrent requests cannot all pass it at once.
 */
export const mayDerive = (taken: number): boolean => taken < MAX_DERIVED_PER_IMAGE;

/**
 * Given the images stored under one cache key, decide: serve one as is, derive the wanted
 * size/format from an original (while `mayDerive` its places as last read), or generate.
 * Rejected images are out of the cache. Newest wins. The store returns originals first, so an
 * original is always seen however many variants it has. A derivation still has to take its place
 * in the store; a miss there is a fresh generation.
 */
export function decideFromCache<T extends CachedImage>(candidates: readonly T[], wanted: Variant): CacheDecision<T> {
  const live = candidates.filter((c) => !c.rejected).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  const originals = live.filter((c) => c.sourceImageId === null);
  if (originals.length === 0) return { kind: 'miss' };
  const liveOriginalIds = new Set(originals.map((o) => o.id));
  const exact = live.find(
    (c) =>
      c.width === wanted.width &&
      c.height === wanted.height &&
      c.format === wanted.format &&
      (c.sourceImageId === null || liveOriginalIds.has(c.sourceImageId)),
  );
  if (exact) return { kind: 'exact', image: exact };
  const source = originals[0];
  return mayDerive(source.derivedSizes) ? { kind: 'derive', source } : { kind: 'miss' };
}
