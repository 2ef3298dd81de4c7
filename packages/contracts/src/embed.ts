import { z } from 'zod';
import { ageBuckets, imageFormats, negativePromptSchema, seedSchema } from './generate';
import { text, unstorableJson } from './text';

const embedDimension = z
  .number({ error: 'Expected an integer' })
  .int({ error: 'Expected an integer' })
  .min(256, { error: 'Must be at least 256' })
  .max(2048, { error: 'Must be at most 2048' });

export const embedElementSchema = z
  .object({
    id: text(1, 100).meta({ description: "Caller's label, echoed back" }),
    prompt: text(1, 2000).optional().meta({ description: 'Give a prompt or a shortcut' }),
    shortcut: text(1, 200).optional().meta({ description: 'A permalink name: its best image; never generates, never uses quota' }),
    style: text(1, 200).optional(),
    width: embedDimension.default(1024),
    height: embedDimension.default(1024),
    format: z.enum(imageFormats, { error: 'Expected one of png, jpeg, webp' }).default('webp'),
    character: z.uuid({ error: 'Expected a uuid' }).optional(),
    age: z.enum(ageBuckets, { error: 'Expected one of kids, bigkids, adults' }).optional(),
    mode: z.enum(['generate', 'instant'], { error: 'Expected generate or instant' }).default('generate'),
    seed: seedSchema.optional(),
    negativePrompt: negativePromptSchema.optional(),
    sig: text(1, 200).optional().meta({
      description:
        "Extension: the site's signature of prompt, style and size (HMAC-SHA256 with the key's signing secret); a key in signed mode starts generations only for signed prompts",
    }),
    tags: z
      .array(text(1, 100), { error: 'Expected an array of strings' })
      .max(10, { error: 'At most 10 tags' })
      .optional()
      .meta({ description: 'Up to ten taxonomy slugs narrowing an instant match' }),
  })
  .refine((e) => e.prompt !== undefined || e.shortcut !== undefined, { error: 'Each element needs a prompt or a shortcut', path: ['prompt'] });

/** Body of POST /api/v1/embed/resolve. */
export const embedResolveBodySchema = z.object({
  elements: z
    .array(embedElementSchema, { error: 'Expected an array of elements' })
    .min(1, { error: 'At least 1 element' })
    .max(50, { error: 'At most 50 elements' }),
});

export type EmbedElement = z.infer<typeof embedElementSchema>;
/** An element as a caller sends it (defaults not yet applied). */
export type EmbedElementInput = z.input<typeof embedElementSchema>;

export const analyticsEventTypes = ['impression', 'click', 'generate', 'cache_hit', 'pin', 'reject', 'style_applied', 'heart', 'flag', 'view'] as const;

/** Body of POST /api/v1/analytics/events. */
export const analyticsBodySchema = z.object({
  events: z
    .array(
      z.object({
        eventType: z.enum(analyticsEventTypes, { error: `Expected one of ${analyticsEventTypes.join(', ')}` }),
        imageId: z.uuid({ error: 'Expected a uuid' }).optional(),
        metadata: z
          .record(z.string(), z.unknown(), { error: 'Expected an object' })
          .refine((m) => JSON.stringify(m).length <= 4096, { error: 'At most 4 KB of metadata' })
          .superRefine((m, ctx) => {
            const issue = unstorableJson(m);
            if (issue) ctx.addIssue({ code: 'custom', message: issue });
          })
          .optional(),
      }),
      { error: 'Expected an array of events' },
    )
    .min(1, { error: 'At least 1 event' })
    .max(100, { error: 'At most 100 events' }),
});

/** One analytics event as a caller sends it. */
export type AnalyticsEventInput = z.input<typeof analyticsBodySchema>['events'][number];
