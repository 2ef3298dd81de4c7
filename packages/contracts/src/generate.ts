import { z } from 'zod';
import { text } from './text';

const dimension = z
  .number({ error: 'Expected an integer' })
  .int({ error: 'Expected an integer' })
  .min(256, { error: 'Must be at least 256' })
  .max(2048, { error: 'Must be at most 2048' })
  .refine((n) => n % 64 === 0, { error: 'Must be a multiple of 64' });

export const imageFormats = ['png', 'jpeg', 'webp'] as const;
export type ImageFormat = (typeof imageFormats)[number];

export const ageBuckets = ['kids', 'bigkids', 'adults'] as const;
export type AgeBucket = (typeof ageBuckets)[number];

/** Body of POST /api/v1/generate. Unknown fields are ignored; values are never clamped. */
export const generateBodySchema = z.object({
  prompt: text(1, 2000).refine((p) => p.trim().length > 0, { error: 'Must not be blank' }),
  style: text(1, 200).optional(),
  strength: z.number({ error: 'Expected a number' }).min(0, { error: 'Must be between 0 and 1' }).max(1, { error: 'Must be between 0 and 1' }).default(1),
  character: z.uuid({ error: 'Expected a uuid' }).optional(),
  width: dimension.default(1024),
  height: dimension.default(1024),
  format: z.enum(imageFormats, { error: 'Expected one of png, jpeg, webp' }).default('webp'),
  ageBuckets: z
    .array(z.enum(ageBuckets, { error: 'Expected one of kids, bigkids, adults' }), { error: 'Expected an array' })
    .max(1, { error: 'At most one entry' })
    .optional(),
  mode: z.enum(['generate', 'instant'], { error: 'Expected generate or instant' }).default('generate'),
});

export type GenerateBody = z.infer<typeof generateBodySchema>;

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
}

const queryInt = (schema: typeof dimension) => z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), schema);

/** Query of GET /api/v1/render: the generate fields that fit in a URL. */
export const renderQuerySchema = z.object({
  prompt: generateBodySchema.shape.prompt,
  style: generateBodySchema.shape.style,
  character: generateBodySchema.shape.character,
  width: queryInt(dimension).default(1024),
  height: queryInt(dimension).default(1024),
  format: generateBodySchema.shape.format,
  age: z.enum(ageBuckets, { error: 'Expected one of kids, bigkids, adults' }).optional(),
});
