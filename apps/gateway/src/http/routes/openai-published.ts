import { z } from 'zod';

/**
 * OpenAI's published shapes for the Images and Models APIs (the OpenAPI description at
 * github.com/openai/openai-openapi: CreateImageRequest, ImagesResponse, Image, Model,
 * ListModelsResponse, ErrorResponse; the `openai` package's types are generated from it), as zod
 * schemas. Contract tests hold this service's requests and answers to them. Objects are strict
 * where the published shape is closed, so a field of ours that OpenAI does not publish shows up.
 */

const imageSizes = ['auto', '1024x1024', '1536x1024', '1024x1536', '256x256', '512x512', '1792x1024', '1024x1792'] as const;
export const publishedImageSizes = imageSizes;

export const publishedCreateImageRequest = z.strictObject({
  prompt: z.string(),
  background: z.enum(['transparent', 'opaque', 'auto']).nullish(),
  model: z.string().nullish(),
  moderation: z.enum(['low', 'auto']).nullish(),
  n: z.number().int().min(1).max(10).nullish(),
  output_compression: z.number().int().min(0).max(100).nullish(),
  output_format: z.enum(['png', 'jpeg', 'webp']).nullish(),
  partial_images: z.number().int().min(0).max(3).nullish(),
  quality: z.enum(['standard', 'hd', 'low', 'medium', 'high', 'auto']).nullish(),
  response_format: z.enum(['url', 'b64_json']).nullish(),
  size: z.enum(imageSizes).nullish(),
  stream: z.boolean().nullish(),
  style: z.enum(['vivid', 'natural']).nullish(),
  user: z.string().optional(),
});

export const publishedImage = z.strictObject({
  b64_json: z.string().optional(),
  revised_prompt: z.string().optional(),
  url: z.string().optional(),
});

export const publishedImagesResponse = z.strictObject({
  created: z.number().int(),
  background: z.enum(['transparent', 'opaque']).optional(),
  data: z.array(publishedImage).optional(),
  output_format: z.enum(['png', 'webp', 'jpeg']).optional(),
  quality: z.enum(['low', 'medium', 'high']).optional(),
  size: z.enum(['1024x1024', '1024x1536', '1536x1024']).optional(),
  usage: z.object({}).passthrough().optional(),
});

export const publishedErrorResponse = z.strictObject({
  error: z.strictObject({ code: z.string().nullable(), message: z.string(), param: z.string().nullable(), type: z.string() }),
});

export const publishedModel = z.strictObject({ id: z.string(), created: z.number().int(), object: z.literal('model'), owned_by: z.string() });

export const publishedModelList = z.strictObject({ object: z.literal('list'), data: z.array(publishedModel) });
