import { AppError } from '../errors';
import { uuidFromName } from '../ids';
import { normalizePrompt } from '../prompts';
import { meaningScore } from '../meaning-score';
import type { MeaningVector, PromptEmbedder } from '../ports/meaning';
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
}

/** A library image found for a prompt, with its raw closeness: pg_trgm similarity and meaning cosine (null: not embedded). */
export interface LibraryCandidate extends LibraryImage {
  trigram: number;
  cosine: number | null;
}

export interface LibraryMeaningQuery {
  space: string;
  vector: MeaningVector;
}

/** What the library is asked for one instant match: the prompt, its filters and its meaning. */
export interface LibraryQuery {
  normalizedPrompt: string;
  style: string | null;
  ageBucket?: string | null;
  /** The image must carry all of these taxonomy slugs. */
  tags?: string[];
  /** Only images created at or before this instant are in the library. */
  joinedBefore: Date;
  /** The prompt's meaning vector, when an embedder runs: adds the nearest by meaning. */
  meaning?: LibraryMeaningQuery;
}

export interface InstantServiceDeps {
  library: { candidates(q: LibraryQuery): Promise<LibraryCandidate[]> };
  /** Embeds the prompt to match by meaning; without one, matching is lexical only. */
  embedder?: PromptEmbedder;
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
 * never a job, never quota. Exact prompt + style → exact with score 1; otherwise the candidate
 * with the best calibrated score (meaningScore: lexical or by meaning), or a 404 below the minimum.
 */
export const createInstantService = (d: InstantServiceDeps) => ({
  async match(accountId: string, request: InstantRequest): Promise<InstantResult | null> {
    const normalizedPrompt = normalizePrompt(request.prompt);
    const joinedBefore = new Date(d.now().getTime() - d.libraryDelaySeconds * 1000);
    const meaning = d.embedder ? { space: d.embedder.space, vector: (await d.embedder.embed([normalizedPrompt], { purpose: 'query' }))[0] } : undefined;
    const candidates = await d.library.candidates({
      normalizedPrompt,
      style: request.style ?? null,
      ageBucket: request.ageBucket,
      tags: request.tags,
      joinedBefore,
      meaning,
    });
    const best = bestCandidate(candidates, normalizedPrompt, d.embedder);
    if (!best || (!best.exact && best.score < d.minScore)) return null;
    const pool = best.candidate;
    const imageId = uuidFromName('instant', `${accountId}:${pool.id}`);
    await d.saveCopy({ id: imageId, accountId, pool, prompt: request.prompt });
    return {
      status: 'completed',
      imageUrl: d.storage.publicUrl(pool.storageKey),
      imageId,
      match: best.exact ? 'exact' : 'nearest',
      matchScore: matchScoreOf(best.score),
      poolImageId: pool.id,
    };
  },
});

/** The highest-scoring candidate; without an embedder, cosine is ignored (the score is the trigram similarity). */
export function bestCandidate(candidates: LibraryCandidate[], normalizedPrompt: string, embedder?: Pick<PromptEmbedder, 'calibration'>) {
  let best: { candidate: LibraryCandidate; exact: boolean; score: number } | null = null;
  for (const candidate of candidates) {
    const exact = candidate.normalizedPrompt === normalizedPrompt;
    const score = embedder
      ? meaningScore({ exact, trigram: candidate.trigram, cosine: candidate.cosine }, embedder.calibration)
      : exact
        ? 1
        : candidate.trigram;
    if (!best || score > best.score) best = { candidate, exact, score };
  }
  return best;
}

export const noCloseMatch = () => new AppError('not_found', NO_CLOSE_MATCH);

export type InstantService = ReturnType<typeof createInstantService>;
