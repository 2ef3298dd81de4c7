import { Router } from 'express';
import { z } from 'zod';
import { dimensionSchema, generateBodySchema, imageFormats, negativePromptSchema, seedSchema, text, type GenerationRequest } from '@promptpix/contracts';
import { fieldError } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { checkedGenerationRequest } from '../generation-request';
import { authenticate, authOf, type AuthContext } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { answerWithTakes, MAX_TAKES, type TakesDeps } from '../openai-takes';
import { parseOrThrow } from '../validate';
import { servedModelOf } from './openai-models';

type Deps = TakesDeps & Pick<GatewayDeps, 'characters' | 'credentials' | 'models' | 'promptSafety' | 'rateLimiter' | 'styleResolver' | 'uploads'>;

/** The body is read only after the key is known; this bounds it (a 2000-character prompt and negative prompt, escaped, fit). */
export const OPENAI_BODY_LIMIT = '32kb';
/** OpenAI's own `style` values: accepted and ignored. Any other value is one of this service's styles. */
export const OPENAI_STYLES = ['vivid', 'natural'];

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

/** What an OpenAI-shaped body (a generation's or an edit's) asks of a generation, in this service's terms. */
export const generationFieldsOf = (
  body: Pick<OpenAiImageRequest, 'prompt' | 'style' | 'character' | 'output_format' | 'seed' | 'negative_prompt'>,
  model: string | undefined,
  size: { width: number; height: number },
) => ({
  prompt: body.prompt,
  style: body.style && !OPENAI_STYLES.includes(body.style) ? body.style : undefined,
  character: body.character ?? undefined,
  width: size.width,
  height: size.height,
  format: body.output_format ?? 'png',
  seed: body.seed ?? undefined,
  negativePrompt: body.negative_prompt ?? undefined,
  model,
});

/** The generation request one body asks for, its checks passed (prompt screen, character, style and plan). */
async function generationRequestOf(deps: Deps, auth: AuthContext, body: OpenAiImageRequest): Promise<GenerationRequest> {
  const model = servedModelOf(body.model ?? undefined, deps.models);
  const size = parseImageSize(body.size ?? 'auto');
  if ('error' in size) throw fieldError('size', size.error);
  return checkedGenerationRequest(deps, auth.account, { ...generationFieldsOf(body, model, size), strength: 1 });
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
      await answerWithTakes(deps, res, auth, request, { n: body.n ?? 1, responseFormat: body.response_format ?? 'url' });
    },
  );
