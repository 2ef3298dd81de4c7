/**
 * Replicate predictions: POST /v1/predictions (or /v1/models/{owner}/{name}/predictions for a
 * model's latest version), then GET the prediction's `urls.get` until it settles, then download
 * the first output URL. An edit sends its image (and mask) as data: URLs in the input fields the
 * operator names (`editInputs`); upscaling runs another model (`upscaler`). No transparent
 * backgrounds: the models' inputs for it differ too much to map.
 */
import { DEFAULT_TIMEOUT_MS } from '../backend-limits';
import { checkEdit, whiteRepaintsMask } from '../edit-input';
import { loadSharp } from '../sharp';
import { fitUpscaled, upscaleTarget } from '../upscale';
import { TransientModelError, type EditInput, type EditSupport, type ModelProgress, type ModelRequest, type UpscaleRequest } from '@promptpix/core';
import { PermanentModelError } from './errors';
import { apiRoot, downloadHeaders, requestBytes, requestJson, sleep, toModelImage, withCall, type Call, type RetryOptions } from './http';
import { promptFor } from './prompt';
import type { ImageModel } from '@promptpix/core';

export interface ReplicateModelConfig {
  /** API root; default https://api.replicate.com. A trailing `/v1` is accepted. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer …`. */
  apiToken: string;
  /**
   * What to run: a version id (`5599ed30…`), `owner/name:versionId`, or `owner/name` for a
   * model's latest version (official models such as `black-forest-labs/flux-schnell`).
   */
  version: string;
  /** Extra input fields, e.g. `{ num_inference_steps: 4, output_format: "png" }`; ours win on clashes. */
  input?: Record<string, unknown>;
  /**
   * How the model takes its size: `dimensions` sends `width`/`height` (default); `aspect_ratio`
   * sends the nearest common `aspect_ratio` ("16:9" …) for models such as FLUX.
   */
  sizeInput?: 'dimensions' | 'aspect_ratio';
  /** Ask Replicate to hold the create request up to this many seconds (1..60): `Prefer: wait=n`. */
  preferWaitSeconds?: number;
  /**
   * The model's input fields an edit fills: `image` (the image edited; without it the model cannot
   * edit), `mask` (without it, no masked edits), `strength` (how far the result may depart, 0..1:
   * `prompt_strength`, `strength`, …). E.g. `{ image: "image", mask: "mask", strength: "prompt_strength" }`.
   */
  editInputs?: { image: string; mask?: string; strength?: string };
  /** How the model reads its mask: `white` (white repaints, black keeps: most inpainting models; default) or `alpha` (sent as given: transparent repaints). */
  maskFormat?: 'white' | 'alpha';
  /** A model that upscales (e.g. `nightmareai/real-esrgan:<version>`): what to run, its image and scale fields (default `image`, `scale`) and extra input. */
  upscaler?: { version: string; inputs?: { image?: string; scale?: string }; input?: Record<string, unknown> };
  /** Pause between polls. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Longest one generation may take, queueing, polling and download included. Default 180 000 ms. */
  timeoutMs?: number;
  retry?: RetryOptions;
}

interface Prediction {
  id: string;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled' | (string & {});
  output?: unknown;
  error?: unknown;
  logs?: unknown;
  urls?: { get?: string; cancel?: string };
}

const ASPECT_RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'];

/** The common aspect ratio closest to width:height. */
export const nearestAspectRatio = (width: number, height: number): string => {
  const target = Math.log(width / height);
  const distance = (r: string) => {
    const [w, h] = r.split(':').map(Number);
    return Math.abs(Math.log(w / h) - target);
  };
  return ASPECT_RATIOS.reduce((best, r) => (distance(r) < distance(best) ? r : best));
};

/** `{ detail }` (problem+json, with `title`), or `{ error }`. */
export function replicateErrorMessage(body: unknown): string | undefined {
  const b = body as { detail?: unknown; title?: unknown; error?: unknown } | null;
  if (!b || typeof b !== 'object') return undefined;
  if (typeof b.detail === 'string' && b.detail) return b.detail;
  if (Array.isArray(b.detail)) return b.detail.map((d) => (typeof d === 'string' ? d : ((d as { msg?: string })?.msg ?? JSON.stringify(d)))).join('; ');
  if (typeof b.title === 'string') return b.title;
  if (typeof b.error === 'string') return b.error;
  return undefined;
}

/**
 * What a prediction's `logs` say about its progress: the last sampler bar (tqdm's
 * ` 45%|████▌     | 9/20 [00:01<00:01, 7.50it/s]`) gives the fraction; otherwise the last line is
 * the message. Null for empty logs.
 */
export function replicateLogProgress(logs: unknown): ModelProgress | null {
  if (typeof logs !== 'string' || !logs.trim()) return null;
  const bars = [...logs.matchAll(/(\d{1,3})%\|[^|\n\r]*\|\s*(\d+)\/(\d+)/g)];
  const bar = bars.at(-1);
  if (bar) {
    const [done, total] = [Number(bar[2]), Number(bar[3])];
    return total > 0
      ? { fraction: Math.min(1, done / total), message: `step ${Math.min(done, total)}/${total}` }
      : { fraction: Math.min(1, Number(bar[1]) / 100) };
  }
  const last = logs
    .split(/[\r\n]+/)
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);
  return last ? { message: last } : null;
}

const isSettled = (status: string) => status === 'succeeded' || status === 'failed' || status === 'canceled';

/** Where predictions of `version` are created: a version id, `owner/name:versionId`, or `owner/name` (its latest version). */
function predictionTarget(root: string, version: string): { createUrl: string; versionId?: string } {
  const [modelName, versionId] = version.includes(':') ? version.split(':', 2) : version.includes('/') ? [version, undefined] : [undefined, version];
  return versionId ? { createUrl: `${root}/v1/predictions`, versionId } : { createUrl: `${root}/v1/models/${modelName}/predictions` };
}

/** An image as a data: URL, the way Replicate takes a file input inline: PNG, JPEG and WebP as they are, anything else as PNG. */
async function dataUrl(data: Buffer, what: string): Promise<string> {
  let format: string | undefined;
  try {
    format = (await loadSharp()(data, { failOn: 'error' }).metadata()).format;
  } catch (error) {
    throw new PermanentModelError(`replicate: the ${what} cannot be read (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
  if (format === 'png' || format === 'jpeg' || format === 'webp') return `data:image/${format};base64,${data.toString('base64')}`;
  return `data:image/png;base64,${(await loadSharp()(data).png().toBuffer()).toString('base64')}`;
}

export function createReplicateModel(config: ReplicateModelConfig): ImageModel {
  const root = apiRoot(config.baseUrl ?? 'https://api.replicate.com');
  const auth = { authorization: `Bearer ${config.apiToken}` };
  const pollIntervalMs = config.pollIntervalMs ?? 1000;
  const callOptions = {
    provider: 'replicate',
    timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS.replicate!,
    retry: config.retry,
    errorMessage: replicateErrorMessage,
  };

  const target = config.version.trim();
  if (!target || !config.apiToken) throw new Error('replicate: an API token and a model version are required');
  if (config.upscaler && !config.upscaler.version.trim()) throw new Error('replicate: the upscaler needs a model version');
  const model = predictionTarget(root, target);
  const upscaler = config.upscaler && predictionTarget(root, config.upscaler.version.trim());
  const edits: EditSupport | undefined = config.editInputs ? { mask: !!config.editInputs.mask, maxImages: 1 } : undefined;

  const inputFor = (request: ModelRequest) => ({
    ...config.input,
    prompt: promptFor(request),
    ...(config.sizeInput === 'aspect_ratio'
      ? { aspect_ratio: nearestAspectRatio(request.width, request.height) }
      : { width: request.width, height: request.height }),
    seed: request.seed,
    ...(request.negativePrompt ? { negative_prompt: request.negativePrompt } : {}),
  });

  const parse = (body: unknown): Prediction => {
    const p = body as Partial<Prediction> | null;
    if (!p || typeof p.id !== 'string' || typeof p.status !== 'string') throw new TransientModelError('replicate: the response is not a prediction');
    return p as Prediction;
  };

  /** Best effort: stop paying for a prediction nobody will read. */
  const cancel = async (prediction: Prediction) => {
    const url = prediction.urls?.cancel ?? `${root}/v1/predictions/${prediction.id}/cancel`;
    await fetch(url, { method: 'POST', headers: auth, signal: AbortSignal.timeout(2000) })
      .then((response) => response.body?.cancel())
      .catch(() => undefined);
  };

  const settle = async (call: Call, first: Prediction, onProgress?: (p: ModelProgress) => void): Promise<Prediction> => {
    let prediction = first;
    try {
      while (!isSettled(prediction.status)) {
        await sleep(pollIntervalMs, call.signal);
        prediction = parse(await requestJson(call, { url: prediction.urls?.get ?? `${root}/v1/predictions/${prediction.id}`, headers: auth }));
        const progress = prediction.status === 'starting' ? { message: 'Starting (the model may be booting)' } : replicateLogProgress(prediction.logs);
        if (progress && onProgress) onProgress(progress);
      }
      return prediction;
    } catch (error) {
      if (call.signal.aborted) await cancel(prediction);
      throw error;
    }
  };

  /** The edit's fields of the model's input: the image and mask as data: URLs, the strength. */
  const editInput = async (edit: EditInput, strength: number): Promise<Record<string, unknown>> => {
    const names = config.editInputs!;
    const mask = edit.mask && names.mask ? (config.maskFormat === 'alpha' ? edit.mask : await whiteRepaintsMask('replicate', edit.mask)) : undefined;
    return {
      [names.image]: await dataUrl(edit.images[0], 'image to edit'),
      ...(mask && names.mask && { [names.mask]: await dataUrl(mask, 'mask') }),
      ...(names.strength && { [names.strength]: Math.min(1, Math.max(0, strength)) }),
    };
  };

  /** Runs one prediction to its end and downloads its first output. */
  const predict = async (
    call: Call,
    where: { createUrl: string; versionId?: string },
    input: Record<string, unknown>,
    onProgress?: (p: ModelProgress) => void,
  ) => {
    const wait: Record<string, string> = config.preferWaitSeconds ? { prefer: `wait=${Math.min(60, Math.max(1, Math.round(config.preferWaitSeconds)))}` } : {};
    const created = parse(
      await requestJson(call, {
        url: where.createUrl,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...wait },
        body: JSON.stringify({ ...(where.versionId ? { version: where.versionId } : {}), input }),
      }),
    );
    const done = await settle(call, created, onProgress);
    if (done.status === 'failed') {
      const reason = typeof done.error === 'string' && done.error ? done.error : JSON.stringify(done.error ?? 'no error message');
      throw new PermanentModelError(`replicate: prediction ${done.id} failed: ${reason}`);
    }
    if (done.status === 'canceled') throw new PermanentModelError(`replicate: prediction ${done.id} was canceled`);
    const output = Array.isArray(done.output) ? done.output[0] : done.output;
    if (typeof output !== 'string' || !output) throw new TransientModelError(`replicate: prediction ${done.id} succeeded without an output URL`);
    return toModelImage('replicate', await requestBytes(call, { url: output, headers: downloadHeaders(output, root, auth) }));
  };

  return {
    name: `replicate:${target}`,
    ...(edits && { edits }),
    generate: (request, signal) =>
      withCall(callOptions, signal, async (call) => {
        const { edit } = request;
        if (edit) checkEdit('replicate', edits, edit);
        const input = { ...inputFor(request), ...(edit ? await editInput(edit, request.strength) : {}) };
        return predict(call, model, input, request.onProgress);
      }),
    ...(upscaler && {
      upscale: (request: UpscaleRequest, signal?: AbortSignal) =>
        withCall(callOptions, signal, async (call) => {
          const size = upscaleTarget(request.width, request.height, request.factor);
          const names = config.upscaler?.inputs ?? {};
          const input = {
            ...config.upscaler?.input,
            [names.image ?? 'image']: await dataUrl(request.image, 'image to upscale'),
            [names.scale ?? 'scale']: request.factor,
          };
          return fitUpscaled(await predict(call, upscaler, input), size);
        }),
    }),
  };
}
