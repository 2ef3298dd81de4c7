import { randomInt } from 'node:crypto';
import type { Response } from 'express';
import { z } from 'zod';
import { ErrorMessages, type GenerationRequest, imageFormats } from '@promptpix/contracts';
import { AppError, cacheKeyOf, decideFromCache, quotaExceededError, quotaHeaders, seedsOfTakes, type Started } from '@promptpix/core';
import type { GatewayDeps } from '../deps';
import { type AuthContext, callerOf } from './middleware/auth';
import { type FinishedJob, holdForImage } from './wait-for-job';

/**
 * What the OpenAI-shaped image routes share once their request is checked (generations and edits):
 * `n` takes started through the generation service, the render wait, and OpenAI's ImagesResponse.
 */
export type TakesDeps = Pick<
  GatewayDeps,
  'activeJobsPerKey' | 'cancellation' | 'findCached' | 'generations' | 'images' | 'jobStore' | 'metrics' | 'now' | 'quota' | 'renderWaitMs' | 'storage'
>;

/** Takes one request may ask for (`n`). */
export const MAX_TAKES = 4;

export const openAiImageSchema = z.object({
  url: z.url().optional().meta({ description: 'With response_format url: where the image is; stable, it does not expire' }),
  b64_json: z.string().optional().meta({ description: 'With response_format b64_json: the image file, base64' }),
  revised_prompt: z.string().optional().meta({ description: 'What the model says it drew, when it says (the built-in model does)' }),
});

export const openAiImagesResponseSchema = z.object({
  created: z.number().int().meta({ description: 'Unix seconds' }),
  data: z.array(openAiImageSchema),
  output_format: z.enum(imageFormats),
});
export type OpenAiImagesResponse = z.infer<typeof openAiImagesResponseSchema>;

export type ResponseFormat = 'url' | 'b64_json';

/**
 * Starts the `n` takes through the generation service, each with its cache candidates. A request
 * that cannot afford its fresh takes is refused before any starts; one that runs out part way
 * (another request spent the quota meanwhile) cancels the takes it started, which refunds them
 * while they are still queued.
 */
async function startTakes(deps: TakesDeps, auth: AuthContext, request: GenerationRequest, n: number): Promise<Started[]> {
  const { account } = auth;
  const takes = seedsOfTakes(n, request.seed, () => randomInt(0, 2 ** 32)).map((seed) => ({ ...request, seed }));
  const candidates = await Promise.all(takes.map((take) => deps.findCached(cacheKeyOf(account.id, take))));
  if (n > 1) {
    const fresh = takes.filter((take, i) => decideFromCache(candidates[i], take).kind === 'miss').length;
    const quota = await deps.quota.peek(account);
    if (quota.used + fresh > quota.limit) {
      deps.metrics.quotaRejections.inc();
      throw quotaExceededError(quota);
    }
  }
  const options = { caller: callerOf(auth, deps.activeJobsPerKey) };
  const started: Started[] = [];
  try {
    for (const [i, take] of takes.entries()) started.push(await deps.generations.startWithCandidates(account, take, candidates[i], options));
  } catch (error) {
    const own = started.filter((s) => s.outcome === 'generated' || s.outcome === 'derived');
    await Promise.all(own.map((s) => deps.cancellation.cancel(s.job.jobId, account.id).catch(() => undefined)));
    throw error;
  }
  return started;
}

/** One take as OpenAI's image object: its URL, or its file base64-encoded. */
async function imageOf(deps: TakesDeps, job: FinishedJob, format: ResponseFormat) {
  const revised = job.revisedPrompt === undefined ? {} : { revised_prompt: job.revisedPrompt };
  if (format === 'url') return { url: job.imageUrl, ...revised };
  const image = await deps.images.findById(job.imageId);
  const file = image && (await deps.storage.get(image.storageKey));
  if (!file) throw new AppError('internal', ErrorMessages.internal);
  return { b64_json: file.toString('base64'), ...revised };
}

/**
 * Starts `n` takes of a checked request, sets the quota headers, holds the request until every
 * take has its image (render's bounded wait) and answers OpenAI's ImagesResponse.
 */
export async function answerWithTakes(
  deps: TakesDeps,
  res: Response,
  auth: AuthContext,
  request: GenerationRequest,
  options: { n: number; responseFormat: ResponseFormat },
): Promise<void> {
  const started = await startTakes(deps, auth, request, options.n);
  res.set(quotaHeaders(started[started.length - 1].quota));

  let closed = false;
  res.on('close', () => (closed = true));
  const jobs = await Promise.all(started.map((s) => holdForImage(deps.jobStore, s.job, deps.renderWaitMs, () => closed)));
  const data = await Promise.all(jobs.map((job) => imageOf(deps, job, options.responseFormat)));
  const answer: OpenAiImagesResponse = { created: Math.floor(deps.now().getTime() / 1000), data, output_format: request.format };
  res.json(answer);
}
