import { randomInt } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import {
  dimensionSchema,
  ErrorMessages,
  generateBodySchema,
  imageFormats,
  negativePromptSchema,
  seedSchema,
  text,
  type GenerationRequest,
} from '@promptpix/contracts';
import { AppError, cacheKeyOf, fieldError, decideFromCache, quotaExceededError, quotaHeaders, seedsOfTakes, type Started } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { checkedGenerationRequest } from '../generation-request';
import { authenticate, authOf, callerOf, type AuthContext } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { parseOrThrow } from '../validate';
import { holdForImage, type FinishedJob } from '../wait-for-job';
import { servedModelOf } from './openai-models';

type Deps = Pick<
  GatewayDeps,
  | 'activeJobsPerKey'
  | 'cancellation'
  | 'characters'
  | 'credentials'
  | 'findCached'
  | 'generations'
  | 'images'
  | 'jobStore'
  | 'metrics'
  | 'models'
  | 'now'
  | 'promptSafety'
  | 'quota'
  | 'rateLimiter'
  | 'renderWaitMs'
  | 'storage'
  | 'styleResolver'
  | 'uploads'
>;

/** The body is read only after the key is known; this bounds it (a 2000-character prompt and negative prompt, escaped, fit). */
export const OPENAI_BODY_LIMIT = '32kb';
export const MAX_TAKES = 4;
/** OpenAI's own `style` values: accepted and ignored. Any other value is one of this service's styles. */
const OPENAI_STYLES = ['vivid', 'natural'];

/** OpenAI's `size`: `auto` (1024x1024) or `WxH` within this service's bounds; OpenAI's named sizes are all such. */
export function parseImageSize(size: string): { width: number; height: number } | { error: string } {
  if (size === 'auto') return { width: 1024, height: 1024 };
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!match) return { error: 'Expected auto or WIDTHxHEIGHT, such as 1024x1024' };
  const [width, height] = [Number(match[1]), Number(match[2])];
  for (const [name, value] of [
    ['width', width],
    ['height', height],
  ] as const) {
    const checked = dimensionSchema.safeParse(value);
    if (!checked.success) return { error: `The ${name} ${value}: ${checked.error.issues[0].message}` };
  }
  return { width, height };
}

/** OpenAI marks its optional fields nullable: null reads as not given. */
const optional = <S extends z.ZodType>(schema: S) => schema.nullish();

/** Body of POST /v1/images/generations: OpenAI's request shape, plus this service's extensions. Unknown fields are ignored. */
export const openAiImageRequestSchema = z.object({
  prompt: generateBodySchema.shape.prompt,
  model: optional(text(1, 200)).meta({
    description: "Any id from GET /v1/models; OpenAI's own image model ids (dall-e-3, gpt-image-1, ...) name the default model",
  }),
  n: optional(
    z
      .number({ error: 'Expected an integer' })
      .int({ error: 'Expected an integer' })
      .min(1, { error: `Must be between 1 and ${MAX_TAKES}` })
      .max(MAX_TAKES, { error: `Must be between 1 and ${MAX_TAKES}` }),
  ).meta({
    description: `1 to ${MAX_TAKES} distinct takes (default 1), each with its own seed and each a generation counted against the quota; the first may come from the cache`,
  }),
  size: optional(
    z.string({ error: 'Expected a string' }).superRefine((size, ctx) => {
      const parsed = parseImageSize(size);
      if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
    }),
  ).meta({ description: '`auto` (1024x1024, the default) or WIDTHxHEIGHT, each 256 to 2048 and a multiple of 64', example: '1024x1024' }),
  response_format: optional(z.enum(['url', 'b64_json'], { error: 'Expected url or b64_json' })).meta({
    description: 'url (the default): a stable image URL; b64_json: the encoded image',
  }),
  output_format: optional(z.enum(imageFormats, { error: 'Expected one of png, jpeg, webp' })).meta({ description: 'Default png' }),
  quality: optional(z.enum(['auto', 'standard', 'hd', 'low', 'medium', 'high'], { error: 'Expected one of auto, standard, hd, low, medium, high' })).meta({
    description: 'Accepted and ignored',
  }),
  style: optional(text(1, 200)).meta({
    description: "OpenAI's vivid or natural: ignored. Any other value: a preset id or the id of one of your own styles (GET /api/v1/styles)",
  }),
  character: optional(generateBodySchema.shape.character),
  seed: optional(seedSchema),
  negative_prompt: optional(negativePromptSchema),
  stream: optional(z.literal(false, { error: 'Streaming is not supported: leave stream out' })),
});
export type OpenAiImageRequest = z.infer<typeof openAiImageRequestSchema>;

export const openAiImageSchema = z.object({
  url: z.url().optional().meta({ description: 'With response_format url: where the image is; stable, it does not expire' }),
  b64_json: z.string().optional().meta({ description: 'With response_format b64_json: the image file, base64' }),
});

export const openAiImagesResponseSchema = z.object({
  created: z.number().int().meta({ description: 'Unix seconds' }),
  data: z.array(openAiImageSchema),
  output_format: z.enum(imageFormats),
});
export type OpenAiImagesResponse = z.infer<typeof openAiImagesResponseSchema>;

/** The generation request one body asks for, its checks passed (prompt screen, character, style and plan). */
async function generationRequestOf(deps: Deps, auth: AuthContext, body: OpenAiImageRequest): Promise<GenerationRequest> {
  const model = servedModelOf(body.model ?? undefined, deps.models);
  const size = parseImageSize(body.size ?? 'auto');
  if ('error' in size) throw fieldError('size', size.error);
  return checkedGenerationRequest(deps, auth.account, {
    prompt: body.prompt,
    style: body.style && !OPENAI_STYLES.includes(body.style) ? body.style : undefined,
    character: body.character ?? undefined,
    strength: 1,
    width: size.width,
    height: size.height,
    format: body.output_format ?? 'png',
    seed: body.seed ?? undefined,
    negativePrompt: body.negative_prompt ?? undefined,
    model,
  });
}

/**
 * Starts the `n` takes through the generation service, each with its cache candidates. A request
 * that cannot afford its fresh takes is refused before any starts; one that runs out part way
 * (another request spent the quota meanwhile) cancels the takes it started, which refunds them
 * while they are still queued.
 */
async function startTakes(deps: Deps, auth: AuthContext, request: GenerationRequest, n: number): Promise<Started[]> {
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
async function imageOf(deps: Deps, job: FinishedJob, format: 'url' | 'b64_json') {
  if (format === 'url') return { url: job.imageUrl };
  const image = await deps.images.findById(job.imageId);
  const file = image && (await deps.storage.get(image.storageKey));
  if (!file) throw new AppError('internal', ErrorMessages.internal);
  return { b64_json: file.toString('base64') };
}

/**
 * POST /v1/images/generations (DECISIONS, "OpenAI-compatible surface"): OpenAI's Images API over
 * the same generation service as generate and render, answered synchronously with render's
 * bounded wait. Secret key; the body (32 kB at most) is read only once the key is known.
 */
export const openAiImageRoutes = (deps: Deps) =>
  Router().post(
    '/v1/images/generations',
    authenticate(deps.credentials, { allow: 'secret', bodyLimit: OPENAI_BODY_LIMIT }),
    rateLimit(deps.rateLimiter, 'api', deps.now),
    async (req, res) => {
      const body = parseOrThrow(openAiImageRequestSchema, req.body);
      const auth = authOf(res);
      const request = await generationRequestOf(deps, auth, body);
      const started = await startTakes(deps, auth, request, body.n ?? 1);
      res.set(quotaHeaders(started[started.length - 1].quota));

      let closed = false;
      res.on('close', () => (closed = true));
      const jobs = await Promise.all(started.map((s) => holdForImage(deps.jobStore, s.job, deps.renderWaitMs, () => closed)));
      const data = await Promise.all(jobs.map((job) => imageOf(deps, job, body.response_format ?? 'url')));
      const answer: OpenAiImagesResponse = { created: Math.floor(deps.now().getTime() / 1000), data, output_format: request.format };
      res.json(answer);
    },
  );
