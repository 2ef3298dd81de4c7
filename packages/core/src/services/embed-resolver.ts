import { ErrorMessages, type EmbedElement, type EmbedResult, type GenerationRequest } from '@promptpix/contracts';
import { AppError } from '../errors';
import { choosePermalinkImage, type PermalinkCandidate } from '../permalinks';
import type { Storage } from '../ports/storage';
import type { PromptSafety } from '../safety/prompt-safety';
import { blockedModelText } from '../safety/model-texts';
import { cacheKeyOf, decideFromCache, type CacheKey, type CachedImage } from '../render-cache';
import { cacheStyleOf } from '../styles/presets';
import { promptSignatureValid } from '../prompt-signature';
import { BAD_SIGNATURE_MESSAGE, budgetWindows, UNSIGNED_PROMPT_MESSAGE, type BudgetName, type PublishableBudget } from '../publishable-budget';
import type { EventRecorder } from './event-recorder';
import type { Caller, FreshLimits, GenerationService } from './generation-service';
import type { InstantService } from './instant-service';
import type { QuotaAccount } from './quota-service';

export interface EmbedResolverDeps {
  /** The stored images under each of these cache keys of one account, in the keys' order: at most one query. */
  findCachedMany(accountId: string, keys: CacheKey[]): Promise<CachedImage[][]>;
  /** The images of these permalinks of one account: one query. */
  findPermalinks(accountId: string, names: string[]): Promise<Map<string, { rotation: number; images: PermalinkCandidate[] }>>;
  generations: Pick<GenerationService, 'startWithCandidates'>;
  /** Screens each element's prompt first; a blocked one comes back failed (never a generation, never quota). */
  promptSafety?: PromptSafety | null;
  instant: Pick<InstantService, 'match'>;
  storage: Pick<Storage, 'publicUrl'>;
  events: EventRecorder;
  characterExists(accountId: string, characterId: string): Promise<boolean>;
  /** Checks an element's style for this account (unknown → field error) and resolves it. */
  resolveStyle(account: QuotaAccount, style: string | undefined): Promise<{ style?: string; renderStyle?: string; promptTemplate?: string }>;
  /** A publishable key's budget refused a fresh generation (the owner's view; never throws). */
  onBudgetExceeded(keyId: string, name: BudgetName): void;
  now: () => Date;
}

/** A publishable key's request (docs/api/embed.md, "Publishable keys: budgets and signed prompts"). */
export interface PublishableCaller {
  keyId: string;
  /** The client's address: the socket's, or X-Forwarded-For only from proxies TRUST_PROXY names. */
  client: string;
  budget: PublishableBudget;
  /** Signed mode: fresh generations only for elements whose `sig` this secret made. */
  signingSecret?: string;
}

const NO_STYLE: { style?: string; renderStyle?: string; promptTemplate?: string } = {};

const failure = (error: unknown): string => {
  if (error instanceof AppError) {
    const field = (error.body.details as { fieldErrors?: Record<string, string[]> } | undefined)?.fieldErrors;
    const first = field && Object.entries(field)[0];
    return first ? `${first[0]}: ${first[1][0]}` : error.message;
  }
  return ErrorMessages.internal;
};

/**
 * POST /api/v1/embed/resolve for one account: shortcuts from their permalinks, instant elements
 * from the library, generate elements from the render cache (one query for the whole batch) or
 * a started/joined job. One failing element never fails the batch.
 */
export const createEmbedResolver = (d: EmbedResolverDeps) => {
  const freshLimitsOf = (p: PublishableCaller, signed: boolean): FreshLimits => ({
    refusal: p.signingSecret !== undefined && !signed ? UNSIGNED_PROMPT_MESSAGE : undefined,
    windows: budgetWindows(p.keyId, p.client, p.budget, d.now().getTime()),
    onExceeded: (name) => d.onBudgetExceeded(p.keyId, name),
  });
  return {
    async resolve(
      account: QuotaAccount,
      elements: EmbedElement[],
      onError: (e: unknown) => void,
      caller?: Caller,
      publishable?: PublishableCaller,
    ): Promise<EmbedResult[]> {
      const generateElements = elements.filter((e) => e.prompt !== undefined && e.mode === 'generate' && e.shortcut === undefined);
      const shortcutNames = [...new Set(elements.filter((e) => e.shortcut !== undefined).map((e) => e.shortcut!))];
      // Keyed as each element's request will be once its style is resolved (a preset by its own id).
      const keys = generateElements.map((e) =>
        cacheKeyOf(account.id, {
          prompt: e.prompt!,
          style: cacheStyleOf(e.style),
          character: e.character,
          ageBucket: e.age,
          seed: e.seed,
          negativePrompt: e.negativePrompt,
        }),
      );
      const [cachedPerKey, permalinks] = await Promise.all([
        keys.length > 0 ? d.findCachedMany(account.id, keys) : Promise.resolve([]),
        shortcutNames.length > 0 ? d.findPermalinks(account.id, shortcutNames) : Promise.resolve(new Map()),
      ]);
      const cached = new Map<EmbedElement, CachedImage[]>(generateElements.map((e, i) => [e, cachedPerKey[i]]));
      // One instant for the batch's events: they happen in the same request.
      const at = d.now();

      const resolveOne = async (element: EmbedElement): Promise<EmbedResult> => {
        const id = element.id;
        if (element.shortcut !== undefined) {
          const permalink = permalinks.get(element.shortcut);
          const chosen = permalink && choosePermalinkImage(permalink.images, permalink.rotation);
          return chosen
            ? { id, status: 'ready', imageUrl: d.storage.publicUrl(chosen.storageKey), imageId: chosen.imageId }
            : { id, status: 'failed', error: 'Unknown or empty shortcut' };
        }
        const verdict = d.promptSafety?.check(element.prompt!, element.age);
        if (verdict && !verdict.allowed) return { id, status: 'failed', error: `prompt: ${verdict.reason}` };
        if (element.character && !(await d.characterExists(account.id, element.character)))
          return { id, status: 'failed', error: 'character: Unknown character' };
        const style = element.style === undefined ? NO_STYLE : await d.resolveStyle(account, element.style);
        // The prompt was screened above; what a style adds is screened with it.
        const blocked =
          style.promptTemplate === undefined
            ? null
            : blockedModelText(d.promptSafety ?? null, { prompt: element.prompt!, promptTemplate: style.promptTemplate, ageBucket: element.age });
        if (blocked) return { id, status: 'failed', error: `${blocked.field}: ${blocked.reason}` };
        if (element.mode === 'instant') {
          const match = await d.instant.match(account.id, { prompt: element.prompt!, style: element.style, ageBucket: element.age, tags: element.tags });
          if (!match) return { id, status: 'failed', error: 'No library image is close enough' };
          return {
            id,
            status: 'ready',
            imageUrl: match.imageUrl,
            imageId: match.imageId,
            match: match.match,
            matchScore: match.matchScore,
            poolImageId: match.poolImageId,
          };
        }
        const request: GenerationRequest = {
          prompt: element.prompt!,
          ...style,
          character: element.character,
          strength: 1,
          width: element.width,
          height: element.height,
          format: element.format,
          ageBucket: element.age,
          seed: element.seed,
          negativePrompt: element.negativePrompt,
        };
        const signed = publishable?.signingSecret !== undefined && element.sig !== undefined;
        if (signed && !promptSignatureValid(publishable!.signingSecret!, { ...element, prompt: element.prompt! }, element.sig!))
          return { id, status: 'failed', error: BAD_SIGNATURE_MESSAGE };
        const candidates = cached.get(element) ?? [];
        const decision = decideFromCache(candidates, request);
        if (decision.kind === 'exact') {
          d.events.record({ accountId: account.id, eventType: 'cache_hit', imageId: decision.image.id, metadata: { via: 'embed' }, createdAt: at });
          return { id, status: 'ready', imageUrl: d.storage.publicUrl(decision.image.storageKey), imageId: decision.image.id };
        }
        const fresh = publishable && freshLimitsOf(publishable, signed);
        const started = await d.generations.startWithCandidates(account, request, candidates, { caller, fresh });
        if (started.job.status === 'completed' && started.job.imageUrl)
          return { id, status: 'ready', imageUrl: started.job.imageUrl, imageId: started.job.imageId };
        return { id, status: 'generating', jobId: started.job.jobId };
      };

      return Promise.all(
        elements.map((element) =>
          resolveOne(element).catch((error): EmbedResult => {
            if (!(error instanceof AppError)) onError(error);
            return { id: element.id, status: 'failed', error: failure(error) };
          }),
        ),
      );
    },
  };
};

export type EmbedResolver = ReturnType<typeof createEmbedResolver>;
