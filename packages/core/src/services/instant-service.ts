import { AppError } from '../errors';
import { uuidFromName } from '../ids';
import { normalizePrompt } from '../prompts';
import type { Storage } from '../ports/storage';

export interface LibraryImage {
  id: string;
  normalizedPrompt: string;
  style: string | null;
  storageKey: string;
  width: number;
  height: number;
  format: string;
  seed: number;
  ageBucket: string | null;
  tags: string[];
  score: number;
}

export interface InstantServiceDeps {
  library: {
    nearest(q: { normalizedPrompt: string; style: string | null; ageBucket?: string | null; tags?: string[]; joinedBefore: Date }): Promise<LibraryImage | null>;
  };
  /** Creates (or finds) the account-owned record pointing at the library file. */
  saveCopy(copy: { id: string; accountId: string; pool: LibraryImage; prompt: string }): Promise<void>;
  storage: Pick<Storage, 'publicUrl'>;
  now: () => Date;
  libraryDelaySeconds: number;
  minScore: number;
}

export interface InstantRequest {
  prompt: string;
  style?: string;
  ageBucket?: string;
  tags?: string[];
}

export interface InstantResult {
  status: 'completed';
  imageUrl: string;
  imageId: string;
  match: 'exact' | 'nearest';
  matchScore: number;
  poolImageId: string;
}

export const NO_CLOSE_MATCH = 'No library image is close enough';

/** Rounds a similarity to 3 decimals, clamped to 0..1. */
export const matchScoreOf = (score: number): number => Math.min(1, Math.max(0, Math.round(score * 1000) / 1000));

/**
 * Instant mode (DECISIONS, "Shared library and instant mode"): the closest shared-library image,
 * never a job, never quota. Exact prompt + style → exact with score 1; otherwise the nearest by
 * trigram similarity, or a 404 below the minimum score.
 */
export const createInstantService = (d: InstantServiceDeps) => ({
  async match(accountId: string, request: InstantRequest): Promise<InstantResult | null> {
    const normalizedPrompt = normalizePrompt(request.prompt);
    const joinedBefore = new Date(d.now().getTime() - d.libraryDelaySeconds * 1000);
    const pool = await d.library.nearest({ normalizedPrompt, style: request.style ?? null, ageBucket: request.ageBucket, tags: request.tags, joinedBefore });
    if (!pool) return null;
    const exact = pool.normalizedPrompt === normalizedPrompt;
    if (!exact && pool.score < d.minScore) return null;
    const imageId = uuidFromName('instant', `${accountId}:${pool.id}`);
    await d.saveCopy({ id: imageId, accountId, pool, prompt: request.prompt });
    return {
      status: 'completed',
      imageUrl: d.storage.publicUrl(pool.storageKey),
      imageId,
      match: exact ? 'exact' : 'nearest',
      matchScore: exact ? 1 : matchScoreOf(pool.score),
      poolImageId: pool.id,
    };
  },
});

export const noCloseMatch = () => new AppError('not_found', NO_CLOSE_MATCH);

export type InstantService = ReturnType<typeof createInstantService>;
