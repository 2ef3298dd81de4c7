import { z } from 'zod';
import { type Background, backgroundModes, type EditInputRef, MAX_EDIT_IMAGES } from './image-inputs';
import { text } from './text';
import { webhookUrlSchema } from './webhook';

/** The width and height a generation may have: `min` to `max` pixels, a multiple of `step`. */
export const DIMENSION_LIMITS = { min: 256, max: 2048, step: 64 } as const;

const { min, max, step } = DIMENSION_LIMITS;
export const dimensionSchema = z
  .number({ error: 'Expected an integer' })
  .int({ error: 'Expected an integer' })
  .min(min, { error: `Must be at least ${min}` })
  .max(max, { error: `Must be at most ${max}` })
  .refine((n) => n % step === 0, { error: `Must be a multiple of ${step}` })
  .meta({ multipleOf: step, description: `${min} to ${max}, a multiple of ${step}` });

export const imageFormats = ['png', 'jpeg', 'webp'] as const;
export type ImageFormat = (typeof imageFormats)[number];

export const ageBuckets = ['kids', 'bigkids', 'adults'] as const;

/** Extension: the model's seed. The same prompt, style, seed and size give the same image (procedural model). */
export const seedSchema = z
  .number({ error: 'Expected an integer' })
  .int({ error: 'Expected an integer' })
  .min(0, { error: 'Must be between 0 and 4294967295' })
  .max(4294967295, { error: 'Must be between 0 and 4294967295' })
  .meta({ description: 'Extension: the seed to generate with (0 to 4294967295); part of the cache key when given. The seed used is reported on the job.' });

/** Extension: what the image should not show; part of the cache key when given. */
export const negativePromptSchema = text(1, 2000).meta({
  description: 'Extension: what the image should not show (1 to 2000 characters); passed to providers that accept one; part of the cache key when given.',
});
export type AgeBucket = (typeof ageBuckets)[number];

/** Extension: which of the served models makes the image (docs/operating/models.md); absent: the default model. */
export const modelIdSchema = text(1, 200).meta({
  description:
    'Extension: the id of one of the models this service serves (GET /v1/models); absent, the default model. Part of the cache key unless it is the default.',
});

/** Body of POST /api/v1/generate. Unknown fields are ignored; values are never clamped. */
const inputIdSchema = z.uuid({ error: 'Expected an upload or image id' });

export const generateBodySchema = z.object({
  prompt: text(1, 2000)
    .refine((p) => p.trim().length > 0, { error: 'Must not be blank' })
    .meta({ description: 'What to draw; 1 to 2000 characters, not blank', example: 'a lighthouse at dusk' }),
  style: text(1, 200).optional().meta({ description: 'A preset id or the id of one of your own styles (GET /api/v1/styles)', example: 'watercolor' }),
  strength: z
    .number({ error: 'Expected a number' })
    .min(0, { error: 'Must be between 0 and 1' })
    .max(1, { error: 'Must be between 0 and 1' })
    .default(1)
    .meta({ description: 'How hard the style is applied' }),
  character: z.uuid({ error: 'Expected a uuid' }).optional().meta({ description: 'A character to put in the image (GET /api/v1/characters)' }),
  width: dimensionSchema.default(1024),
  height: dimensionSchema.default(1024),
  format: z.enum(imageFormats, { error: 'Expected one of png, jpeg, webp' }).default('webp'),
  ageBuckets: z
    .array(z.enum(ageBuckets, { error: 'Expected one of kids, bigkids, adults' }), { error: 'Expected an array' })
    .max(1, { error: 'At most one entry' })
    .optional()
    .meta({ description: 'At most one entry; omitted means all ages' }),
  seed: seedSchema.optional(),
  negativePrompt: negativePromptSchema.optional(),
  webhookUrl: webhookUrlSchema.optional(),
  model: modelIdSchema.optional(),
  image: z
    .union([
      inputIdSchema,
      z
        .array(inputIdSchema, { error: 'Expected an id or an array of ids' })
        .min(1, { error: 'At least one id' })
        .max(MAX_EDIT_IMAGES, { error: `At most ${MAX_EDIT_IMAGES} images` }),
    ])
    .optional()
    .meta({
      description: `An edit: the image to start from, an upload's id (POST /api/v1/uploads) or one of your images' ids; an array of up to ${MAX_EDIT_IMAGES} for reference images after it. \`strength\` then says how far the result may depart from it (0 keeps it, 1 repaints freely)`,
    }),
  mask: inputIdSchema.optional().meta({ description: "An upload's id: a PNG the size of the image, transparent where it may change (OpenAI's convention)" }),
  background: z
    .enum(backgroundModes, { error: 'Expected one of auto, opaque, transparent' })
    .optional()
    .meta({ description: 'transparent: an alpha background on the models that can draw one (PNG and WebP keep it, JPEG is flattened onto white)' }),
  mode: z
    .enum(['generate', 'instant'], { error: 'Expected generate or instant' })
    .default('generate')
    .meta({ description: 'generate: a job to poll (202); instant: the closest shared-library image at once (200), free on every plan' }),
});

export type GenerateBody = z.infer<typeof generateBodySchema>;
/** A generate body as a caller sends it (defaults not yet applied). */
export type GenerateBodyInput = z.input<typeof generateBodySchema>;
/** The render query as a caller writes it. */
export type RenderQueryInput = z.input<typeof renderQuerySchema>;

/** What a generation job is asked to make, as stored with the job. */
export interface GenerationRequest {
  prompt: string;
  /** The style id the caller passed (part of the cache key). */
  style?: string;
  /** The preset whose look is rendered (an own style renders as its base preset). */
  renderStyle?: string;
  /** Prompt template of the style, for real model providers ("{prompt}" is replaced). */
  promptTemplate?: string;
  strength: number;
  character?: string;
  width: number;
  height: number;
  format: ImageFormat;
  ageBucket?: AgeBucket;
  /** The caller's seed; without one the worker draws one. */
  seed?: number;
  negativePrompt?: string;
  /** The model id the caller chose; absent for the default model (docs/operating/models.md). */
  model?: string;
  /**
   * An edit (issue #31): the stored inputs it starts from, resolved from the caller's ids by the
   * upload service. `strength` then says how far the result may depart from the input.
   */
  edit?: EditInputRef;
  /** `transparent`: an alpha background where the model can draw one; absent is `auto`. */
  background?: Background;
}

const queryInt = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), schema);

/** Query of GET /api/v1/render: the generate fields that fit in a URL. */
export const renderQuerySchema = z.object({
  prompt: generateBodySchema.shape.prompt,
  style: generateBodySchema.shape.style,
  character: generateBodySchema.shape.character,
  width: queryInt(dimensionSchema.default(1024)),
  height: queryInt(dimensionSchema.default(1024)),
  format: generateBodySchema.shape.format,
  age: z.enum(ageBuckets, { error: 'Expected one of kids, bigkids, adults' }).optional().meta({ description: 'Age bucket: a single value' }),
  seed: queryInt(seedSchema).optional(),
  negativePrompt: negativePromptSchema.optional(),
  model: modelIdSchema.optional(),
});
