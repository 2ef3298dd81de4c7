import { Router, type Response } from 'express';
import { renderQuerySchema, type GenerationRequest } from '@promptpix/contracts';
import { AppError, cacheKeyOf, decideFromCache, fieldError, normalizePrompt, quotaHeaders, type Started } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf, callerOf } from '../middleware/auth';
import { chosenModel } from '../model-choice';
import { assertModelTextsAllowed, assertPromptAllowed } from '../prompt-safety';
import { rateLimit } from '../middleware/rate-limit';
import { redirectFound } from '../redirect';
import { parseOrThrow } from '../validate';
import { holdForImage } from '../wait-for-job';

type Deps = Pick<
  GatewayDeps,
  | 'activeJobsPerKey'
  | 'characters'
  | 'credentials'
  | 'events'
  | 'findCached'
  | 'generations'
  | 'images'
  | 'jobStore'
  | 'models'
  | 'now'
  | 'promptSafety'
  | 'rateLimiter'
  | 'recentQuota'
  | 'renderWaitMs'
  | 'storage'
  | 'styleResolver'
>;

function redirect(res: Response, url: string) {
  // Short: a rejected image must stop being served soon.
  res.setHeader('Cache-Control', 'private, max-age=60');
  redirectFound(res, url);
}

/**
 * GET /api/v1/render (DECISIONS): an existing image redirects at once; otherwise the request
 * starts or joins the generation and is held until it completes (RENDER_WAIT_MS), then 302;
 * still running → 503 + Retry-After with the jobId. Out of quota: any image of the exact prompt.
 */
export const renderRoutes = (deps: Deps) =>
  Router().get('/api/v1/render', authenticate(deps.credentials, { allow: 'secret' }), rateLimit(deps.rateLimiter, 'api', deps.now), async (req, res) => {
    const query = parseOrThrow(renderQuerySchema, req.query);
    const model = chosenModel(deps.models, query.model);
    assertPromptAllowed(deps.promptSafety, query.prompt, query.age);
    const { account } = authOf(res);
    if (query.character && !(await deps.characters.exists(account.id, query.character))) throw fieldError('character', 'Unknown character');
    const request: GenerationRequest = {
      prompt: query.prompt,
      ...(await deps.styleResolver.resolve(account, query.style)),
      character: query.character,
      strength: 1,
      width: query.width,
      height: query.height,
      format: query.format,
      ageBucket: query.age,
      seed: query.seed,
      negativePrompt: query.negativePrompt,
      ...(model && { model }),
    };
    assertModelTextsAllowed(deps.promptSafety, request);

    // Hot path: an existing image is one cache query (usually none: the memo) and a redirect, with
    // the quota headers (an extension) from a read at most a second old; a failed read only drops them.
    const candidates = await deps.findCached(cacheKeyOf(account.id, request));
    const cached = decideFromCache(candidates, request);
    if (cached.kind === 'exact') {
      deps.events.record({ accountId: account.id, eventType: 'cache_hit', imageId: cached.image.id, metadata: { via: 'render' } });
      const state = await deps.recentQuota(account).catch(() => null);
      if (state) res.set(quotaHeaders(state));
      return redirect(res, deps.storage.publicUrl(cached.image.storageKey));
    }

    let started: Started;
    try {
      started = await deps.generations.startWithCandidates(account, request, candidates, { caller: callerOf(authOf(res), deps.activeJobsPerKey) });
    } catch (error) {
      if (!(error instanceof AppError) || error.kind !== 'quota_exceeded') throw error;
      const fallback = await deps.images.findLatestByPrompt(account.id, normalizePrompt(query.prompt));
      if (!fallback) throw error;
      res.set(error.headers);
      return redirect(res, deps.storage.publicUrl(fallback.storageKey));
    }
    // Every outcome carries them: a fresh generation's after its charge, a derived size or a joined one's unchanged.
    res.set(quotaHeaders(started.quota));

    let closed = false;
    res.on('close', () => (closed = true));
    const job = await holdForImage(deps.jobStore, started.job, deps.renderWaitMs, () => closed);
    return redirect(res, job.imageUrl);
  });
