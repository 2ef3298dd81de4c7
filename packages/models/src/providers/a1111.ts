/**
 * Stable Diffusion WebUI (AUTOMATIC1111) and Forge, started with `--api`:
 * POST /sdapi/v1/txt2img, /sdapi/v1/img2img from a reference image or for an edit (with a mask:
 * inpainting), and /sdapi/v1/extra-single-image to upscale. No transparent backgrounds: Stable
 * Diffusion draws every pixel.
 */
import { DEFAULT_TIMEOUT_MS } from '../backend-limits';
import { checkEdit, whiteRepaintsMask } from '../edit-input';
import { fitUpscaled, upscaleTarget } from '../upscale';
import { TransientModelError, type EditInput, type ModelProgress, type ModelRequest } from '@promptpix/core';
import { PermanentModelError } from './errors';
import { apiRoot, requestJson, sleep, toModelImage, withCall, type Call, type RetryOptions } from './http';
import { promptFor } from './prompt';
import type { ReferenceImageModel } from './references';

export interface A1111ModelConfig {
  /** WebUI root; default http://127.0.0.1:7860. */
  baseUrl?: string;
  /** HTTP basic auth (`--api-auth user:password`); both or neither. */
  username?: string;
  password?: string;
  /** Sampling steps. Default 25. */
  steps?: number;
  /** e.g. `DPM++ 2M`, `Euler a`; the server's default when unset. */
  samplerName?: string;
  /** Classifier-free guidance scale; the server's default (7) when unset. */
  cfgScale?: number;
  negativePrompt?: string;
  /** Checkpoint to use for these requests (`override_settings.sd_model_checkpoint`). */
  checkpoint?: string;
  /** Longest side sent to the server; larger requests are scaled down (the worker resizes after). Default 1024. */
  maxSide?: number;
  /** img2img from a character's reference: how far the result may move away from it, 0..1. Default 0.6. (An edit sends its own strength.) */
  denoisingStrength?: number;
  /** The upscaler of `extra-single-image` (`upscaler_1`), one of the WebUI's `GET /sdapi/v1/upscalers` names. Default `R-ESRGAN 4x+`. */
  upscaler?: string;
  /** Inpainting: how many pixels the mask's edge is blurred (`mask_blur`). Default 4. */
  maskBlur?: number;
  /** Longest one generation may take, retries included. Default 300 000 ms. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** How often `GET /sdapi/v1/progress` is asked while an image is made (only when the caller listens). Default 1000 ms. */
  progressIntervalMs?: number;
}

/**
 * `GET /sdapi/v1/progress` → our progress: `{ progress, eta_relative, state: { sampling_step,
 * sampling_steps, job_count } }`. Nothing while the WebUI is idle (progress 0, no job). The WebUI
 * reports the one job it runs, so with other clients on the same WebUI it may be theirs.
 */
export function a1111Progress(body: unknown): ModelProgress | null {
  const b = body as { progress?: unknown; eta_relative?: unknown; state?: { sampling_step?: unknown; sampling_steps?: unknown; job_count?: unknown } } | null;
  if (!b || typeof b !== 'object' || typeof b.progress !== 'number' || !(b.progress > 0)) return null;
  const step = b.state?.sampling_step;
  const steps = b.state?.sampling_steps;
  const eta = typeof b.eta_relative === 'number' && b.eta_relative > 0 ? `, about ${Math.ceil(b.eta_relative)} s left` : '';
  const message =
    typeof step === 'number' && typeof steps === 'number' && steps > 0 ? `step ${Math.min(step, steps)}/${steps}${eta}` : eta ? eta.slice(2) : undefined;
  return { fraction: Math.min(1, b.progress), ...(message ? { message } : {}) };
}

/**
 * The size to ask for: width×height scaled down to fit `maxSide`, rounded to multiples of 8
 * (Stable Diffusion's latent grid), at least 64.
 */
export function a1111Size(width: number, height: number, maxSide = 1024): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const fit = (v: number) => Math.max(64, Math.round((v * scale) / 8) * 8);
  return { width: fit(width), height: fit(height) };
}

/**
 * FastAPI's `{ detail: "…" }` or `{ detail: [{ loc, msg }] }`, or the WebUI's exception shape
 * `{ error, detail, body, errors }`.
 */
export function a1111ErrorMessage(body: unknown): string | undefined {
  const b = body as { detail?: unknown; error?: unknown; errors?: unknown } | null;
  if (!b || typeof b !== 'object') return undefined;
  if (typeof b.detail === 'string' && b.detail) return b.detail;
  if (Array.isArray(b.detail)) {
    return b.detail
      .map((d: { loc?: unknown[]; msg?: string }) => (Array.isArray(d?.loc) ? `${d.loc.join('.')}: ${d.msg ?? ''}` : (d?.msg ?? JSON.stringify(d))))
      .join('; ');
  }
  const errors = typeof b.errors === 'string' ? b.errors : b.errors ? JSON.stringify(b.errors) : '';
  if (typeof b.error === 'string' && b.error) return errors ? `${b.error}: ${errors}` : b.error;
  return errors || undefined;
}

/** The deployment's negative prompt (A1111_NEGATIVE_PROMPT) and the caller's, joined. */
const negativePromptOf = (configured: string | undefined, requested: string | undefined) => {
  const parts = [configured, requested].filter((p): p is string => !!p);
  return parts.length > 0 ? { negative_prompt: parts.join(', ') } : {};
};

/** An edit takes one image (more init images would make more pictures), with or without a mask. */
const EDITS = { mask: true, maxImages: 1 } as const;

/**
 * img2img's fields for an edit. The WebUI's mask is white where it repaints (our mask's
 * transparent area); it keeps the unmasked area's pixels (`inpainting_fill: 1`, "original"), over
 * the whole picture (`inpaint_full_res: false`), so the repaint sees its surroundings.
 */
async function editFields(edit: EditInput, strength: number, maskBlur: number): Promise<Record<string, unknown>> {
  return {
    init_images: [edit.images[0].toString('base64')],
    denoising_strength: Math.min(1, Math.max(0, strength)),
    resize_mode: 0,
    ...(edit.mask && {
      mask: (await whiteRepaintsMask('a1111', edit.mask)).toString('base64'),
      mask_blur: maskBlur,
      inpainting_fill: 1,
      inpaint_full_res: false,
      inpainting_mask_invert: 0,
    }),
  };
}

export function createA1111Model(config: A1111ModelConfig): ReferenceImageModel {
  if (!!config.username !== !!config.password) throw new Error('a1111: set both username and password, or neither');
  const root = apiRoot(config.baseUrl ?? 'http://127.0.0.1:7860');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.username) headers.authorization = `Basic ${Buffer.from(`${config.username}:${config.password}`).toString('base64')}`;
  const callOptions = { provider: 'a1111', timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS.a1111!, retry: config.retry, errorMessage: a1111ErrorMessage };

  const common = (request: ModelRequest) => ({
    prompt: promptFor(request),
    ...negativePromptOf(config.negativePrompt, request.negativePrompt),
    ...a1111Size(request.width, request.height, config.maxSide),
    seed: request.seed,
    steps: config.steps ?? 25,
    ...(config.samplerName ? { sampler_name: config.samplerName } : {}),
    ...(config.cfgScale !== undefined ? { cfg_scale: config.cfgScale } : {}),
    ...(config.checkpoint ? { override_settings: { sd_model_checkpoint: config.checkpoint } } : {}),
  });

  /** Polls the WebUI's progress while the image is made; returns the function that stops it. */
  const watchProgress = (call: Call, onProgress: (p: ModelProgress) => void): (() => void) => {
    const stop = new AbortController();
    const signal = AbortSignal.any([call.signal, stop.signal]);
    const everyMs = config.progressIntervalMs ?? 1000;
    void (async () => {
      while (!signal.aborted) {
        await sleep(everyMs, signal).catch(() => undefined);
        if (signal.aborted) return;
        try {
          const response = await fetch(`${root}/sdapi/v1/progress?skip_current_image=true`, { headers, signal });
          if (!response.ok) {
            await response.body?.cancel();
            continue;
          }
          const progress = a1111Progress(await response.json());
          if (progress && !signal.aborted) onProgress(progress);
        } catch {
          // Progress is a nicety: a failed poll is skipped, the image call decides the outcome.
        }
      }
    })();
    return () => stop.abort();
  };

  const run = (endpoint: 'txt2img' | 'img2img', payload: Record<string, unknown>, signal?: AbortSignal, onProgress?: (p: ModelProgress) => void) =>
    withCall(callOptions, signal, async (call) => {
      const stopWatching = onProgress ? watchProgress(call, onProgress) : undefined;
      const body = await requestJson(call, { url: `${root}/sdapi/v1/${endpoint}`, method: 'POST', headers, body: JSON.stringify(payload) }).finally(() =>
        stopWatching?.(),
      );
      const image = (body as { images?: unknown[] } | null)?.images?.[0];
      if (typeof image !== 'string' || !image) throw new TransientModelError(`a1111: the ${endpoint} response has no image`);
      return toModelImage('a1111', Buffer.from(image.replace(/^data:[^,]*,/, ''), 'base64'));
    });

  return {
    name: config.checkpoint ? `a1111:${config.checkpoint}` : 'a1111',
    edits: EDITS,
    generate: async (request, signal) => {
      if (!request.edit) return run('txt2img', common(request), signal, request.onProgress);
      checkEdit('a1111', EDITS, request.edit);
      return run('img2img', { ...common(request), ...(await editFields(request.edit, request.strength, config.maskBlur ?? 4)) }, signal, request.onProgress);
    },
    upscale: (request, signal) =>
      withCall(callOptions, signal, async (call) => {
        const target = upscaleTarget(request.width, request.height, request.factor);
        const body = await requestJson(call, {
          url: `${root}/sdapi/v1/extra-single-image`,
          method: 'POST',
          headers,
          body: JSON.stringify({
            image: request.image.toString('base64'),
            resize_mode: 0,
            upscaling_resize: request.factor,
            upscaler_1: config.upscaler ?? 'R-ESRGAN 4x+',
            show_extras_results: true,
          }),
        });
        const image = (body as { image?: unknown } | null)?.image;
        if (typeof image !== 'string' || !image) throw new TransientModelError('a1111: the extra-single-image response has no image');
        return fitUpscaled(await toModelImage('a1111', Buffer.from(image.replace(/^data:[^,]*,/, ''), 'base64')), target);
      }),
    /** img2img from the first reference: the WebUI would make one image per extra init image. */
    generateWithReferences: (request, references, signal) => {
      if (references.length === 0) return Promise.reject(new PermanentModelError('a1111: generateWithReferences needs at least one reference image'));
      return run(
        'img2img',
        { ...common(request), init_images: [references[0].toString('base64')], denoising_strength: config.denoisingStrength ?? 0.6 },
        signal,
        request.onProgress,
      );
    },
  };
}
