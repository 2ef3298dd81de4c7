import { loadSharp } from '../sharp';
import type { ImageModel, ModelImage, ModelRequest } from '@promptpix/core';
import { characterFigureSvg, characterPalette, prepareProceduralReference } from './character';
import { revisedPrompt } from './revised-prompt';
import { composeScene } from './scene';
import { checkEdit } from '../edit-input';
import { editProcedural } from './edit';
import { applyRecipe, recipeFor } from './style';

export interface ProceduralModelOptions {
  /** Simulated model latency in milliseconds: a call takes at least this long, rendering included. Default 0. */
  latencyMs?: number;
}

/** One image (references are not used), with or without a mask. */
const EDITS = { mask: true, maxImages: 1 } as const;

/** The API allows 256..2048; a little headroom, but no 100-megapixel surprises. */
const maxSide = 4096;

const checkSize = (name: string, v: number) => {
  if (!Number.isInteger(v) || v < 1 || v > maxSide) throw new RangeError(`${name} must be an integer from 1 to ${maxSide}, got ${v}`);
};

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('The operation was aborted', 'AbortError');

/** Settles like `work`, or rejects with the signal's reason as soon as it aborts. */
const abortable = <T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
};

const sleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    if (ms <= 0) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Renders a request to PNG bytes: SVG scene → librsvg (inside sharp's libvips) → style recipe → PNG.
 * With `background: 'transparent'` the scene leaves its backdrop out (composeScene) and the
 * recipe's result keeps the rendered alpha.
 */
export const renderProcedural = async (request: ModelRequest): Promise<ModelImage> => {
  const { width, height } = request;
  const transparent = request.background === 'transparent';
  const { svg, plan, subjects } = composeScene({ ...request, transparent });
  let rendered = loadSharp()(Buffer.from(svg), { failOn: 'error' });
  if (request.character) {
    // The character stands in the foreground, in the colours of its (original or prepared) references.
    const figure = characterFigureSvg(await characterPalette(request.character), width, height, request.seed);
    rendered = loadSharp()(
      await rendered
        .composite([{ input: Buffer.from(figure) }])
        .png({ compressionLevel: 1 })
        .toBuffer(),
    );
  }
  // Recipes flatten, blur and texture the colours; what is see-through is the scene's decision.
  const alpha = transparent ? await rendered.clone().ensureAlpha().extractChannel(3).raw().toBuffer() : undefined;
  const recipe = recipeFor(request.style);
  let styled = await applyRecipe(rendered, recipe, request.strength, { width, height });
  if (alpha) {
    styled = loadSharp()(await styled.removeAlpha().raw().toBuffer(), { raw: { width, height, channels: 3 } }).joinChannel(alpha, {
      raw: { width, height, channels: 1 },
    });
  }
  // An intermediate the worker re-encodes: fast compression beats small bytes here.
  const { data, info } = await styled.png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
  const style = recipe && request.strength > 0 ? request.style!.trim().toLowerCase() : undefined;
  return { data, width: info.width, height: info.height, revisedPrompt: revisedPrompt(subjects, plan, style) };
};

/**
 * The built-in offline model: pictures composed from the prompt's words (palette, terrain,
 * motifs), deterministic for (prompt, style, strength, seed, width, height, background, edit).
 * It edits (./edit.ts) with a mask and draws on a transparent background; it has no upscaler of
 * its own (the worker's resampling is what it would do).
 */
export const createProceduralModel = (options: ProceduralModelOptions = {}): ImageModel => {
  const latencyMs = options.latencyMs ?? 0;
  if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new RangeError(`latencyMs must be a non-negative number, got ${latencyMs}`);
  return {
    name: 'procedural',
    edits: EDITS,
    transparentBackground: true,
    async generate(request, signal) {
      signal?.throwIfAborted();
      checkSize('width', request.width);
      checkSize('height', request.height);
      const { edit } = request;
      if (edit) checkEdit('procedural', EDITS, edit);
      const started = Date.now();
      const image = await abortable(edit ? editProcedural(request, edit, renderProcedural) : renderProcedural(request), signal);
      // The latency is the whole call's: rendering time counts towards it.
      await sleep(latencyMs - (Date.now() - started), signal);
      return image;
    },
    async prepareReference(input, signal) {
      signal?.throwIfAborted();
      const started = Date.now();
      const image = await abortable(prepareProceduralReference(input), signal);
      // Preparing a reference is a model call too: it takes the simulated latency.
      await sleep(latencyMs - (Date.now() - started), signal);
      return image;
    },
  };
};
