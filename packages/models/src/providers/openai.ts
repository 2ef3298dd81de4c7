/**
 * OpenAI Images API and OpenAI-compatible servers (LocalAI, vLLM-style gateways …):
 * POST /v1/images/generations (JSON) and, for an edit or with reference images, POST
 * /v1/images/edits (multipart: `image` or `image[]`, `mask`). GPT image models draw transparent
 * backgrounds (`background`). No upscaler.
 */
import { DEFAULT_TIMEOUT_MS } from '../backend-limits';
import { checkEdit } from '../edit-input';
import { loadSharp } from '../sharp';
import { TransientModelError, type EditSupport, type ModelImage, type ModelRequest } from '@promptpix/core';
import { PermanentModelError } from './errors';
import { apiRoot, downloadHeaders, requestBytes, requestJson, toModelImage, withCall, type Call, type RetryOptions } from './http';
import { promptFor } from './prompt';
import type { ReferenceImageModel } from './references';

export const DEFAULT_OPENAI_SIZES: readonly string[] = ['1024x1024', '1536x1024', '1024x1536'];

export interface OpenAIModelConfig {
  /** Server root; default https://api.openai.com. A trailing `/v1` is accepted. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer …`; leave empty for a server without auth. */
  apiKey?: string;
  /** `gpt-image-1`, `dall-e-3`, or whatever the compatible server calls its model. */
  model: string;
  /** Optional `quality` (`low`/`medium`/`high`/`auto`, or `standard`/`hd` for dall-e-3). */
  quality?: string;
  /** The server takes any `WxH`: send the requested size. Default false: nearest of `sizes`. */
  arbitrarySizes?: boolean;
  /** Sizes the server accepts, `WxH`. Default 1024x1024, 1536x1024, 1024x1536. */
  sizes?: readonly string[];
  /**
   * Send `response_format: "b64_json"`. Default true, except for `gpt-image-*` models, which
   * always answer base64 and do not take the field.
   */
  responseFormat?: boolean;
  /**
   * The most images one edit may send; 0: the model cannot edit. Default: 16 for `gpt-image-*`, 0
   * for `dall-e-3` (the edits endpoint does not take it), 1 otherwise (`dall-e-2`, compatible servers).
   */
  editImages?: number;
  /** Longest one generation may take, retries included. Default 120 000 ms. */
  timeoutMs?: number;
  retry?: RetryOptions;
}

/** What the edits endpoint takes for a model: up to 16 images for the GPT image models, one for dall-e-2, none for dall-e-3. */
export function openAIEditSupport(config: Pick<OpenAIModelConfig, 'model' | 'editImages'>): EditSupport | undefined {
  const images = config.editImages ?? (config.model.startsWith('gpt-image') ? 16 : config.model === 'dall-e-3' ? 0 : 1);
  return images > 0 ? { mask: true, maxImages: images } : undefined;
}

/**
 * The supported size closest in shape (aspect ratio), then in area, to width×height.
 * The worker cover-crops to the exact size afterwards.
 */
export function nearestSize(width: number, height: number, sizes: readonly string[] = DEFAULT_OPENAI_SIZES): string {
  const parsed = sizes.map((size) => {
    const match = /^(\d+)x(\d+)$/.exec(size.trim());
    if (!match) throw new Error(`openai: size "${size}" is not WxH`);
    return { size: size.trim(), w: Number(match[1]), h: Number(match[2]) };
  });
  if (parsed.length === 0) throw new Error('openai: no sizes configured');
  const ratio = Math.log(width / height);
  const area = Math.log(width * height);
  const score = (s: { w: number; h: number }) => [Math.abs(Math.log(s.w / s.h) - ratio), Math.abs(Math.log(s.w * s.h) - area)] as const;
  return parsed.reduce((best, s) => {
    const [ra, aa] = score(s);
    const [rb, ab] = score(best);
    return ra < rb - 1e-9 || (Math.abs(ra - rb) <= 1e-9 && aa < ab) ? s : best;
  }).size;
}

/** `{ error: { message, type, code } }`, or a bare `{ message }` / `{ detail }` from compatible servers. */
export function openAIErrorMessage(body: unknown): string | undefined {
  const b = body as { error?: { message?: unknown; code?: unknown } | string; message?: unknown; detail?: unknown } | null;
  if (!b || typeof b !== 'object') return undefined;
  if (typeof b.error === 'string') return b.error;
  if (b.error && typeof b.error.message === 'string') return b.error.message;
  if (typeof b.message === 'string') return b.message;
  if (typeof b.detail === 'string') return b.detail;
  return undefined;
}

export function createOpenAIModel(config: OpenAIModelConfig): ReferenceImageModel {
  if (!config.model.trim()) throw new Error('openai: a model name is required');
  // A malformed size list fails at start-up, not on the first job.
  if (!config.arbitrarySizes) nearestSize(1, 1, config.sizes ?? DEFAULT_OPENAI_SIZES);
  const root = apiRoot(config.baseUrl ?? 'https://api.openai.com');
  const auth: Record<string, string> = config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {};
  const gptImage = config.model.startsWith('gpt-image');
  const sendResponseFormat = config.responseFormat ?? !gptImage;
  const edits = openAIEditSupport(config);
  const callOptions = { provider: 'openai', timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS.openai!, retry: config.retry, errorMessage: openAIErrorMessage };
  const sizeFor = (request: ModelRequest) =>
    config.arbitrarySizes ? `${request.width}x${request.height}` : nearestSize(request.width, request.height, config.sizes ?? DEFAULT_OPENAI_SIZES);

  const fields = (request: ModelRequest): Record<string, string | number> => ({
    model: config.model,
    prompt: promptFor(request),
    size: sizeFor(request),
    n: 1,
    ...(sendResponseFormat ? { response_format: 'b64_json' } : {}),
    ...(config.quality ? { quality: config.quality } : {}),
    // Only the GPT image models take a background; a transparent one needs PNG or WebP output.
    ...(gptImage && request.background ? { background: request.background } : {}),
    ...(gptImage && request.background === 'transparent' ? { output_format: 'png' } : {}),
  });

  /** POST /v1/images/edits: the fields, then the images (`image` for one, `image[]` for more) and the mask. */
  const postEdit = async (call: Call, request: ModelRequest, images: Buffer[], mask: Buffer | undefined, label: string) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields(request))) form.append(name, String(value));
    const field = images.length === 1 ? 'image' : 'image[]';
    for (const [i, data] of images.entries()) {
      const file = await asUploadable(data, `${label} ${i + 1}`);
      form.append(field, new Blob([file.data], { type: file.type }), `${label}-${i + 1}.${file.ext}`);
    }
    if (mask) {
      const file = await asPng(mask, 'mask');
      form.append('mask', new Blob([file], { type: 'image/png' }), 'mask.png');
    }
    return imageFrom(call, await requestJson(call, { url: `${root}/v1/images/edits`, method: 'POST', headers: auth, body: form }));
  };

  /** `{ created, data: [{ b64_json } | { url }] }` → the image. */
  const imageFrom = async (call: Call, body: unknown): Promise<ModelImage> => {
    const first = (body as { data?: Array<{ b64_json?: unknown; url?: unknown }> } | null)?.data?.[0];
    if (typeof first?.b64_json === 'string' && first.b64_json) return toModelImage('openai', Buffer.from(first.b64_json, 'base64'));
    if (typeof first?.url === 'string' && first.url) {
      const bytes = await requestBytes(call, { url: first.url, headers: downloadHeaders(first.url, root, auth) });
      return toModelImage('openai', bytes);
    }
    throw new TransientModelError('openai: the response has no image (data[0].b64_json or data[0].url)');
  };

  return {
    name: `openai:${config.model}`,
    ...(edits && { edits }),
    ...(gptImage && { transparentBackground: true }),

    generate: (request, signal) =>
      withCall(callOptions, signal, async (call) => {
        const { edit } = request;
        if (edit) {
          checkEdit('openai', edits, edit);
          return postEdit(call, request, edit.images, edit.mask, 'image');
        }
        const body = await requestJson(call, {
          url: `${root}/v1/images/generations`,
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(fields(request)),
        });
        return imageFrom(call, body);
      }),

    generateWithReferences: (request, references, signal) =>
      withCall(callOptions, signal, async (call) => {
        if (references.length === 0) throw new PermanentModelError('openai: generateWithReferences needs at least one reference image');
        return postEdit(call, { ...request, edit: undefined }, references, undefined, 'reference');
      }),
  };
}

/** The Images API takes PNG, JPEG or WebP uploads; anything else sharp reads is sent as PNG. */
async function asUploadable(data: Buffer, what: string): Promise<{ data: Uint8Array<ArrayBuffer>; type: string; ext: string }> {
  const format = await formatOf(data, what);
  if (format === 'png' || format === 'webp') return { data: new Uint8Array(data), type: `image/${format}`, ext: format };
  if (format === 'jpeg') return { data: new Uint8Array(data), type: 'image/jpeg', ext: 'jpg' };
  return { data: new Uint8Array(await loadSharp()(data).png().toBuffer()), type: 'image/png', ext: 'png' };
}

/** The mask must be a PNG with an alpha channel (its transparent pixels are what changes). */
async function asPng(data: Buffer, what: string): Promise<Uint8Array<ArrayBuffer>> {
  const format = await formatOf(data, what);
  const hasAlpha = (await loadSharp()(data).metadata()).hasAlpha;
  return new Uint8Array(format === 'png' && hasAlpha ? data : await loadSharp()(data).ensureAlpha().png().toBuffer());
}

async function formatOf(data: Buffer, what: string): Promise<string | undefined> {
  try {
    return (await loadSharp()(data, { failOn: 'error' }).metadata()).format;
  } catch (error) {
    throw new PermanentModelError(`openai: ${what} cannot be read (${(error as Error).message})`, { cause: error });
  }
}
