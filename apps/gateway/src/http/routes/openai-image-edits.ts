import { Router } from 'express';
import { z } from 'zod';
import { backgroundModes, IMAGE_INPUT_LIMITS, MAX_EDIT_IMAGES } from '@promptpix/contracts';
import { editSizeOf, fieldError, imageFieldOf, type PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { assertEditFits, checkedGenerationRequest } from '../generation-request';
import { assertPromptAllowed } from '../prompt-safety';
import { authenticate, authOf } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { type MultipartBody, type MultipartLimits, readMultipart } from '../multipart';
import { answerWithTakes, type TakesDeps } from '../openai-takes';
import { parseOrThrow } from '../validate';
import { generationFieldsOf, openAiImageRequestSchema, parseImageSize } from './openai-images';
import { servedModelOf } from './openai-models';

type Deps = TakesDeps &
  Pick<GatewayDeps, 'characters' | 'credentials' | 'models' | 'promptSafety' | 'rateLimiter' | 'styleResolver' | 'uploadSlots' | 'uploads'>;

/**
 * The multipart body of an edit, as OpenAI's clients send it: the image under `image` (several
 * under `image[]`, at most MAX_EDIT_IMAGES), an optional `mask`, each file at most
 * IMAGE_INPUT_LIMITS.maxBytes; the rest are short text fields (8 kB each: a 2000-character
 * prompt fits).
 */
export const OPENAI_EDIT_BODY: MultipartLimits = {
  fileFields: ['image', 'image[]', 'mask'],
  maxFiles: MAX_EDIT_IMAGES + 1,
  maxFileBytes: IMAGE_INPUT_LIMITS.maxBytes,
  maxFields: 24,
  maxFieldBytes: 8 * 1024,
};

const EditMessages = {
  noImage: 'Expected an image file in the field "image" (several in "image[]")',
  tooManyImages: `At most ${MAX_EDIT_IMAGES} images`,
  oneMask: 'At most one mask',
  sentTwice: 'Sent more than once',
} as const;

const shape = openAiImageRequestSchema.shape;
const optional = <S extends z.ZodType>(schema: S) => schema.nullish();

/**
 * The text fields of POST /v1/images/edits: OpenAI's ImageEditParams (the files aside), plus this
 * service's extensions. Unknown fields (`user`, `input_fidelity`, `output_compression`,
 * `partial_images`) are ignored.
 */
export const openAiImageEditRequestSchema = z.object({
  prompt: shape.prompt,
  model: shape.model,
  n: shape.n,
  size: shape.size.meta({
    description:
      "`auto` (the default): the first image's size, fitted to 256..2048 in multiples of 64 (aspect ratio kept); or WIDTHxHEIGHT, each 256 to 2048 and a multiple of 64, to which the image and mask are cover-cropped from the centre",
    example: '1024x1024',
  }),
  response_format: shape.response_format,
  output_format: shape.output_format,
  quality: shape.quality,
  background: optional(z.enum(backgroundModes, { error: 'Expected one of auto, opaque, transparent' })).meta({
    description: 'transparent: an alpha background on the models that can draw one (PNG and WebP keep it, JPEG is flattened onto white)',
  }),
  style: shape.style,
  character: shape.character,
  seed: shape.seed,
  negative_prompt: shape.negative_prompt,
  strength: optional(z.number({ error: 'Expected a number' }).min(0, { error: 'Must be between 0 and 1' }).max(1, { error: 'Must be between 0 and 1' })).meta({
    description: 'Extension: how far the result may depart from the image, 0 (keeps it) to 1 (repaints freely, the default)',
  }),
  stream: shape.stream,
});
export type OpenAiImageEditRequest = z.infer<typeof openAiImageEditRequestSchema>;

/** Form fields that stand for a number or a boolean; their text is read as such, anything else is left for the schema to refuse. */
const NUMBER_FIELDS = ['n', 'seed', 'strength'];
const BOOLEAN_FIELDS = ['stream'];

/** The form's text fields as one object, each name once (sent twice: a 400 naming it). */
function formFieldsOf(fields: MultipartBody['fields']): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, values] of fields) {
    if (values.length > 1) throw fieldError(name, EditMessages.sentTwice);
    const value = values[0];
    if (NUMBER_FIELDS.includes(name) && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) body[name] = Number(value);
    else if (BOOLEAN_FIELDS.includes(name) && (value === 'true' || value === 'false')) body[name] = value === 'true';
    else body[name] = value;
  }
  return body;
}

/**
 * Checks an edit's form, stores its files as the account's uploads and returns the generation
 * request they make. The cheap checks (fields, counts, the model's edit support, the prompt
 * screen) come before any file is decoded; each file is then sanitised and stored like POST /api/v1/uploads
 * (counted against the upload budget, expiring when unused), so a 400 names the field it came in.
 */
async function editRequestOf(deps: Deps, account: { id: string; plan: PlanName }, form: MultipartBody) {
  const body = parseOrThrow(openAiImageEditRequestSchema, formFieldsOf(form.fields));
  const images = form.files.filter((file) => file.field !== 'mask');
  const masks = form.files.filter((file) => file.field === 'mask');
  if (images.length === 0) throw fieldError('image', EditMessages.noImage);
  if (images.length > MAX_EDIT_IMAGES) throw fieldError('image', EditMessages.tooManyImages);
  if (masks.length > 1) throw fieldError('mask', EditMessages.oneMask);
  const model = servedModelOf(body.model ?? undefined, deps.models);
  assertEditFits(deps.models, model, { images: images.length, mask: masks.length > 0 });
  const asked = body.size && body.size !== 'auto' ? parseImageSize(body.size) : undefined;
  if (asked && 'error' in asked) throw fieldError('size', asked.error);
  // A prompt the screen refuses stores nothing (checkedGenerationRequest screens it again with the style's template).
  assertPromptAllowed(deps.promptSafety, body.prompt, undefined);

  const stored = [];
  for (const [index, file] of images.entries()) stored.push((await deps.uploads.upload(account.id, file.data, imageFieldOf(index, images.length))).upload);
  const mask = masks[0] && (await deps.uploads.upload(account.id, masks[0].data, 'mask')).upload;
  const size = asked ?? editSizeOf(stored[0]);
  const request = await checkedGenerationRequest(deps, account, {
    ...generationFieldsOf(body, model, size),
    strength: body.strength ?? 1,
    image: stored.map((upload) => upload.id),
    ...(mask && { mask: mask.id }),
    ...(body.background && { background: body.background }),
  });
  return { body, request };
}

/**
 * POST /v1/images/edits (issue #31): OpenAI's image edits, multipart as its clients send them,
 * over the same generation service as /v1/images/generations and answered the same way. Secret
 * key; the body is read only after the key, the rate limit and an upload slot (upload-slots.ts),
 * which is given back once the files are stored.
 */
export const openAiImageEditRoutes = (deps: Deps) =>
  Router().post('/v1/images/edits', authenticate(deps.credentials, { allow: 'secret' }), rateLimit(deps.rateLimiter, 'api', deps.now), async (req, res) => {
    const auth = authOf(res);
    const release = deps.uploadSlots.take(auth.account.id);
    let edit: Awaited<ReturnType<typeof editRequestOf>>;
    try {
      edit = await editRequestOf(deps, auth.account, await readMultipart(req, OPENAI_EDIT_BODY));
    } finally {
      release();
    }
    await answerWithTakes(deps, res, auth, edit.request, { n: edit.body.n ?? 1, responseFormat: edit.body.response_format ?? 'url' });
  });
