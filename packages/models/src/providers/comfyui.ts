/**
 * ComfyUI: queues an API-format workflow (`POST /prompt` with a `client_id`), follows it over the
 * websocket (`/ws?clientId=…`: `progress`, `executing`, `execution_success`, `execution_error`, …)
 * or, when the socket cannot be opened or drops, by polling `GET /history/{prompt_id}`; fetches
 * the image with `GET /view`; and frees the server when the call is abandoned (`POST /interrupt`
 * for a running prompt, `POST /queue {delete}` for a queued one).
 *
 * Edits and upscales run workflows of their own (`editWorkflow`, `upscaleWorkflow`), their images
 * uploaded first (`POST /upload/image`). The mask goes up as it is: ComfyUI's LoadImageMask
 * (channel alpha) and LoadImage's MASK output both read alpha 0 as "repaint". No transparent
 * backgrounds: what a workflow draws is the operator's.
 */
import { DEFAULT_TIMEOUT_MS } from '../backend-limits';
import { createHash, randomUUID } from 'node:crypto';
import { loadSharp } from '../sharp';
import WebSocket from 'ws';
import { checkEdit } from '../edit-input';
import { fitUpscaled, upscaleTarget } from '../upscale';
import {
  TransientModelError,
  type EditInput,
  type EditSupport,
  type ModelImage,
  type ModelProgress,
  type ModelRequest,
  type UpscaleRequest,
} from '@promptpix/core';
import { a1111Size } from './a1111';
import {
  fillWorkflow,
  parseNodeMapping,
  parseWorkflow,
  pickOutputImage,
  resolvePlacements,
  WorkflowConfigError,
  type ComfyWorkflow,
  type NodeMapping,
  type NodeRole,
  type Placements,
  type WorkflowValues,
} from './comfyui-workflow';
import { PermanentModelError } from './errors';
import { apiRoot, requestBytes, requestJson, sleep, toModelImage, withCall, type Call, type RetryOptions } from './http';
import { promptFor } from './prompt';
import type { ReferenceImageModel } from './references';

export interface ComfyUIModelConfig {
  /** Server root; default http://127.0.0.1:8188. */
  baseUrl?: string;
  /** The workflow in ComfyUI's API format (the parsed JSON of "Save (API Format)"). */
  workflow: unknown;
  /** Where values go, on top of what is found from the graph: `{"prompt":"6.text","seed":"3.seed"}`. */
  nodes?: NodeMapping;
  /** The workflow edits run (img2img or inpainting, API format): without it the model cannot edit. */
  editWorkflow?: unknown;
  /** Where an edit's values go (`image`, `mask`, `denoise`, and the prompt's roles), on top of what is found. */
  editNodes?: NodeMapping;
  /** The workflow upscales run (API format): without it the worker resamples. */
  upscaleWorkflow?: unknown;
  /** Where an upscale's values go (`image`, `scale`, `output`), on top of what is found. */
  upscaleNodes?: NodeMapping;
  /** Sampling steps written into the mapped steps input; the workflow's own value when unset. */
  steps?: number;
  /** Longest side asked of the server (multiples of 8); the worker resizes after. Default 1024. */
  maxSide?: number;
  /** Pause between `GET /history` polls when the websocket is not available. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Follow progress over the websocket (default true); false polls only. */
  websocket?: boolean;
  /** How long opening the websocket may take before polling is used instead. Default 5000 ms. */
  websocketOpenMs?: number;
  /** A websocket silent this long (a proxy that passes the handshake but not the messages) is given up for polling. Default 60 000 ms. */
  websocketSilenceMs?: number;
  /** Longest one generation may take, queueing and download included. Default 300 000 ms. */
  timeoutMs?: number;
  retry?: RetryOptions;
}

/**
 * `{ error: { type, message, details }, node_errors: { id: { errors: [{ message, details }], class_type } } }`
 * from `POST /prompt`, or `{ error: "no prompt" }`.
 */
export function comfyErrorMessage(body: unknown): string | undefined {
  const b = body as { error?: unknown; node_errors?: unknown } | null;
  if (!b || typeof b !== 'object') return undefined;
  const parts: string[] = [];
  if (typeof b.error === 'string') parts.push(b.error);
  else if (b.error && typeof b.error === 'object') {
    const e = b.error as { message?: unknown; details?: unknown };
    if (typeof e.message === 'string') parts.push(typeof e.details === 'string' && e.details ? `${e.message}: ${e.details}` : e.message);
  }
  if (b.node_errors && typeof b.node_errors === 'object' && !Array.isArray(b.node_errors)) {
    for (const [id, entry] of Object.entries(
      b.node_errors as Record<string, { errors?: Array<{ message?: string; details?: string }>; class_type?: string }>,
    )) {
      for (const e of entry?.errors ?? []) parts.push(`node ${id} (${entry.class_type ?? '?'}): ${e.message ?? ''}${e.details ? `: ${e.details}` : ''}`);
    }
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

interface HistoryEntry {
  outputs?: unknown;
  status?: { status_str?: string; completed?: boolean; messages?: Array<[string, Record<string, unknown>]> };
}

/** A message of ComfyUI's websocket (text frames; binary preview frames are skipped). */
interface SocketMessage {
  type: string;
  data: Record<string, unknown>;
}

/** An `execution_error`: a node raised. Out-of-memory may pass on a retry; anything else will not. */
function executionFailure(promptId: string, data: Record<string, unknown>): Error {
  const type = typeof data.exception_type === 'string' ? data.exception_type : '';
  const where = data.node_type ? ` in node ${String(data.node_id ?? '?')} (${String(data.node_type)})` : '';
  const message = `comfyui: prompt ${promptId} failed${where}: ${type ? `${type}: ` : ''}${String(data.exception_message ?? 'no message').trim()}`;
  return /OutOfMemory|out of memory/i.test(`${type} ${String(data.exception_message)}`) ? new TransientModelError(message) : new PermanentModelError(message);
}

/** What ended a prompt, read from a history entry's `status.messages` when it did not succeed. */
function historyFailure(promptId: string, entry: HistoryEntry): Error | undefined {
  if (entry.status?.status_str !== 'error') return undefined;
  const messages = entry.status.messages ?? [];
  const error = messages.find(([type]) => type === 'execution_error');
  if (error) return executionFailure(promptId, error[1]);
  if (messages.some(([type]) => type === 'execution_interrupted')) return new TransientModelError(`comfyui: prompt ${promptId} was interrupted on the server`);
  return new PermanentModelError(`comfyui: prompt ${promptId} ended with an error`);
}

/**
 * The websocket of one generate() call, opened before the prompt is queued so no message is
 * missed: `follow` settles with `done` when the prompt finished, `dropped` when the socket closed
 * first (the caller polls instead), or rejects with the prompt's own failure.
 */
interface SocketFollower {
  follow(promptId: string, signal: AbortSignal): Promise<'done' | 'dropped'>;
  close(): void;
}

function openSocket(
  url: string,
  workflow: ComfyWorkflow,
  onProgress: (p: ModelProgress) => void,
  openMs: number,
  silenceMs: number,
  signal: AbortSignal,
): Promise<SocketFollower | null> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { handshakeTimeout: openMs, maxPayload: 8 * 1024 * 1024 });
    const early: SocketMessage[] = [];
    let handle: ((message: SocketMessage) => void) | null = null;
    let onClose: (() => void) | null = null;
    let opened = false;
    socket.on('message', (raw, isBinary) => {
      if (isBinary) return;
      let message: SocketMessage;
      try {
        message = JSON.parse(raw.toString()) as SocketMessage;
      } catch {
        return;
      }
      if (!message || typeof message.type !== 'string' || !message.data || typeof message.data !== 'object') return;
      if (handle) handle(message);
      else if (early.length < 1000) early.push(message);
    });
    socket.on('error', () => {
      if (!opened) resolve(null);
    });
    socket.on('close', () => {
      if (!opened) resolve(null);
      onClose?.();
    });
    const abort = () => socket.terminate();
    signal.addEventListener('abort', abort, { once: true });
    socket.on('open', () => {
      opened = true;
      resolve({
        follow: (promptId, callSignal) =>
          new Promise((settle, fail) => {
            let started = false;
            const ours = (data: Record<string, unknown>) => data.prompt_id === promptId || (data.prompt_id === undefined && started);
            let silence: NodeJS.Timeout | undefined;
            const heard = () => {
              clearTimeout(silence);
              silence = setTimeout(() => finish('dropped'), silenceMs);
            };
            const finish = (outcome: 'done' | 'dropped' | { error: unknown }) => {
              clearTimeout(silence);
              handle = null;
              onClose = null;
              callSignal.removeEventListener('abort', onAbort);
              if (typeof outcome === 'object') fail(outcome.error);
              else settle(outcome);
            };
            const onAbort = () => finish({ error: callSignal.reason });
            if (callSignal.aborted) return fail(callSignal.reason);
            callSignal.addEventListener('abort', onAbort, { once: true });
            onClose = () => finish('dropped');
            heard();
            handle = ({ type, data }) => {
              heard();
              if (type === 'status' && !started) {
                const remaining = (data.status as { exec_info?: { queue_remaining?: unknown } } | undefined)?.exec_info?.queue_remaining;
                if (typeof remaining === 'number' && remaining > 0) onProgress({ message: `Waiting in ComfyUI's queue (${remaining} queued there)` });
                return;
              }
              if (!ours(data)) return;
              if (type === 'execution_start') {
                started = true;
                onProgress({ fraction: 0, message: 'Started' });
              } else if (type === 'executing') {
                started = true;
                if (data.node === null) return finish('done');
                const node = workflow[String(data.node)];
                if (node) onProgress({ message: `Running ${node._meta?.title ?? node.class_type}` });
              } else if (type === 'progress' && typeof data.value === 'number' && typeof data.max === 'number' && data.max > 0) {
                const node = typeof data.node === 'string' ? workflow[data.node] : undefined;
                onProgress({
                  fraction: data.value / data.max,
                  message: `${node ? `${node._meta?.title ?? node.class_type}: ` : ''}step ${data.value}/${data.max}`,
                });
              } else if (type === 'execution_success') {
                finish('done');
              } else if (type === 'execution_error') {
                finish({ error: executionFailure(promptId, data) });
              } else if (type === 'execution_interrupted') {
                finish({ error: new TransientModelError(`comfyui: prompt ${promptId} was interrupted on the server`) });
              }
            };
            for (const message of early.splice(0)) if (handle) handle(message);
            if (socket.readyState !== WebSocket.OPEN) finish('dropped');
          }),
        close: () => {
          signal.removeEventListener('abort', abort);
          socket.terminate();
        },
      });
    });
  });
}

/** PNG, JPEG and WebP go up as they are; anything else sharp reads goes up as PNG. */
async function uploadable(data: Buffer, what: string): Promise<{ bytes: Buffer; ext: string; type: string }> {
  let format: string | undefined;
  try {
    format = (await loadSharp()(data, { failOn: 'error' }).metadata()).format;
  } catch (error) {
    throw new PermanentModelError(`comfyui: the ${what} cannot be read (${(error as Error).message})`, { cause: error });
  }
  if (format === 'png' || format === 'webp') return { bytes: data, ext: format, type: `image/${format}` };
  if (format === 'jpeg') return { bytes: data, ext: 'jpg', type: 'image/jpeg' };
  return { bytes: await loadSharp()(data).png().toBuffer(), ext: 'png', type: 'image/png' };
}

/** A PNG of the image's size, transparent everywhere (OpenAI's convention: all of it may change). */
async function clearMaskLike(image: Buffer): Promise<Buffer> {
  let size: { width?: number; height?: number };
  try {
    size = await loadSharp()(image, { failOn: 'error' }).metadata();
  } catch (error) {
    throw new PermanentModelError(`comfyui: the image to edit cannot be read (${(error as Error).message})`, { cause: error });
  }
  return loadSharp()({ create: { width: size.width ?? 1, height: size.height ?? 1, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png()
    .toBuffer();
}

/** A workflow and where a request's values go in it. */
interface Graph {
  workflow: ComfyWorkflow;
  placements: Placements;
}

/** Parses one of the configured workflows; a mistake fails at start-up, naming which workflow. */
function graphOf(which: string, json: unknown, nodes: NodeMapping | undefined, required: readonly NodeRole[]): Graph {
  try {
    const workflow = parseWorkflow(json);
    return { workflow, placements: resolvePlacements(workflow, parseNodeMapping(nodes ?? {}), required) };
  } catch (error) {
    if (error instanceof WorkflowConfigError) throw new Error(`comfyui: ${which}${error.message}`);
    throw error;
  }
}

export function createComfyUIModel(config: ComfyUIModelConfig): ReferenceImageModel & { readonly placements: Placements } {
  const main = graphOf('', config.workflow, config.nodes, ['prompt']);
  const { placements } = main;
  const editGraph = config.editWorkflow === undefined ? undefined : graphOf('editWorkflow: ', config.editWorkflow, config.editNodes, ['prompt', 'image']);
  const upscaleGraph = config.upscaleWorkflow === undefined ? undefined : graphOf('upscaleWorkflow: ', config.upscaleWorkflow, config.upscaleNodes, ['image']);
  const edits: EditSupport | undefined = editGraph && { mask: !!editGraph.placements.mask, maxImages: 1 };
  const root = apiRoot(config.baseUrl ?? 'http://127.0.0.1:8188');
  const wsRoot = root.replace(/^http/, 'ws');
  const pollIntervalMs = config.pollIntervalMs ?? 1000;
  const callOptions = { provider: 'comfyui', timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS.comfyui!, retry: config.retry, errorMessage: comfyErrorMessage };
  const json = { 'content-type': 'application/json' };

  /** Content-named, so the same image is stored once however often it is used. */
  const upload = async (call: Call, data: Buffer, what: string): Promise<string> => {
    const file = await uploadable(data, what);
    const form = new FormData();
    const name = `promptpix-${createHash('sha256').update(file.bytes).digest('hex').slice(0, 24)}.${file.ext}`;
    form.append('image', new Blob([new Uint8Array(file.bytes)], { type: file.type }), name);
    form.append('type', 'input');
    form.append('overwrite', 'true');
    const body = (await requestJson(call, { url: `${root}/upload/image`, method: 'POST', body: form })) as { name?: unknown; subfolder?: unknown } | null;
    if (typeof body?.name !== 'string' || !body.name) throw new TransientModelError('comfyui: the upload answer has no file name');
    return typeof body.subfolder === 'string' && body.subfolder ? `${body.subfolder}/${body.name}` : body.name;
  };

  const history = async (call: Call, promptId: string): Promise<HistoryEntry | undefined> => {
    const body = (await requestJson(call, { url: `${root}/history/${encodeURIComponent(promptId)}` })) as Record<string, HistoryEntry> | null;
    return body && typeof body === 'object' ? body[promptId] : undefined;
  };

  /** Polls the history until the prompt has an entry that says it is finished. */
  const poll = async (call: Call, promptId: string): Promise<HistoryEntry> => {
    for (;;) {
      const entry = await history(call, promptId);
      if (entry && (entry.status?.completed || entry.status?.status_str === 'error' || (!entry.status && entry.outputs))) return entry;
      await sleep(pollIntervalMs, call.signal);
    }
  };

  /**
   * Best effort, on a short clock of its own: stop ComfyUI working on a prompt nobody will read.
   * Found by its id or, when the call ended before the id came back, by this call's client_id
   * (queue items carry it in their extra data).
   */
  const free = async (promptId: string | undefined, clientId: string) => {
    const signal = AbortSignal.timeout(2000);
    try {
      const queue = (await (await fetch(`${root}/queue`, { signal })).json()) as { queue_running?: unknown[][]; queue_pending?: unknown[][] };
      const ours = (item: unknown) => Array.isArray(item) && (item[1] === promptId || (item[3] as { client_id?: unknown } | null)?.client_id === clientId);
      const find = (list: unknown[][] | undefined) => (list ?? []).find(ours)?.[1];
      const running = find(queue.queue_running);
      const queued = find(queue.queue_pending);
      if (typeof running === 'string') {
        // Newer ComfyUI interrupts only the named prompt; older ones interrupt what runs, which is this one.
        await fetch(`${root}/interrupt`, { method: 'POST', headers: json, body: JSON.stringify({ prompt_id: running }), signal }).then((r) => r.body?.cancel());
      } else if (typeof queued === 'string') {
        await fetch(`${root}/queue`, { method: 'POST', headers: json, body: JSON.stringify({ delete: [queued] }), signal }).then((r) => r.body?.cancel());
      }
    } catch {
      // The server is gone or slow: nothing more to do from here.
    }
  };

  /** Queues `graph` with `values` in place, follows it to its end and fetches its image. */
  const execute = async (call: Call, graph: Graph, values: WorkflowValues, report: (p: ModelProgress) => void): Promise<ModelImage> => {
    const prompt = fillWorkflow(graph.workflow, graph.placements, values);
    const clientId = randomUUID();
    const socket =
      config.websocket === false
        ? null
        : await openSocket(
            `${wsRoot}/ws?clientId=${clientId}`,
            graph.workflow,
            report,
            config.websocketOpenMs ?? 5000,
            config.websocketSilenceMs ?? 60_000,
            call.signal,
          );
    let promptId: string | undefined;
    let settled = false;
    try {
      const queued = (await requestJson(call, {
        url: `${root}/prompt`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ prompt, client_id: clientId }),
      })) as { prompt_id?: unknown } | null;
      if (typeof queued?.prompt_id !== 'string' || !queued.prompt_id) throw new TransientModelError('comfyui: the /prompt answer has no prompt_id');
      const id = queued.prompt_id;
      promptId = id;
      let entry: HistoryEntry | undefined;
      try {
        if (socket && (await socket.follow(id, call.signal)) === 'done') entry = await history(call, id);
      } catch (error) {
        settled = !call.signal.aborted;
        throw error;
      }
      socket?.close();
      if (!entry) entry = await poll(call, id);
      settled = true;
      const failure = historyFailure(id, entry);
      if (failure) throw failure;
      const output = pickOutputImage(entry.outputs, graph.placements.output?.node);
      if (!output) throw new PermanentModelError(`comfyui: prompt ${id} finished without an image output`);
      report({ fraction: 1, message: 'Downloading the image' });
      const query = new URLSearchParams({ filename: output.filename, subfolder: output.subfolder, type: output.type });
      return await toModelImage('comfyui', await requestBytes(call, { url: `${root}/view?${query}` }));
    } finally {
      socket?.close();
      if (!settled) await free(promptId, clientId);
    }
  };

  const reporter =
    (request: Pick<ModelRequest, 'onProgress'>) =>
    (p: ModelProgress): void => {
      try {
        request.onProgress?.(p);
      } catch {
        // A progress listener never fails the call.
      }
    };

  /** The request's own values: prompt, negative prompt, seed, steps and the size asked of the server. */
  const requestValues = (request: ModelRequest): WorkflowValues => {
    const size = a1111Size(request.width, request.height, config.maxSide);
    return {
      prompt: promptFor(request),
      negativePrompt: request.negativePrompt,
      seed: request.seed,
      steps: config.steps,
      width: size.width,
      height: size.height,
    };
  };

  const run = (request: ModelRequest, reference: Buffer | undefined, signal: AbortSignal | undefined): Promise<ModelImage> =>
    withCall(callOptions, signal, async (call) => {
      const image = reference && placements.image ? await upload(call, reference, 'reference image') : undefined;
      return execute(call, main, { ...requestValues(request), image }, reporter(request));
    });

  /** An edit: the image (and mask) uploaded, then the edit workflow with the strength as its denoise. */
  const runEdit = (request: ModelRequest, edit: EditInput, signal: AbortSignal | undefined): Promise<ModelImage> => {
    if (!editGraph) {
      return Promise.reject(
        new PermanentModelError(
          'comfyui: this model cannot edit images: set editWorkflow (an API-format img2img or inpainting workflow) in its models-file entry',
        ),
      );
    }
    if (edit.mask && !editGraph.placements.mask) {
      return Promise.reject(
        new PermanentModelError('comfyui: the edit workflow takes no mask: add a LoadImageMask node (channel alpha) or map editNodes.mask'),
      );
    }
    checkEdit('comfyui', edits, edit);
    return withCall(callOptions, signal, async (call) => {
      const image = await upload(call, edit.images[0], 'image to edit');
      // An inpainting workflow edited without a mask may change everything: a fully transparent mask.
      const maskData = edit.mask ?? (editGraph.placements.mask ? await clearMaskLike(edit.images[0]) : undefined);
      const mask = maskData ? await upload(call, maskData, 'mask') : undefined;
      const denoise = Math.min(1, Math.max(0, request.strength));
      return execute(call, editGraph, { ...requestValues(request), image, mask, denoise }, reporter(request));
    });
  };

  const upscale = (request: UpscaleRequest, signal?: AbortSignal): Promise<ModelImage> =>
    withCall(callOptions, signal, async (call) => {
      const size = upscaleTarget(request.width, request.height, request.factor);
      const image = await upload(call, request.image, 'image to upscale');
      const values = { prompt: '', seed: request.seed, image, scale: request.factor };
      return fitUpscaled(await execute(call, upscaleGraph!, values, () => undefined), size);
    });

  return {
    name: 'comfyui',
    placements,
    ...(edits && { edits }),
    ...(upscaleGraph && { upscale }),
    generate: (request, signal) => (request.edit ? runEdit(request, request.edit, signal) : run(request, request.character?.images[0], signal)),
    generateWithReferences: (request, references, signal) => {
      if (references.length === 0) return Promise.reject(new PermanentModelError('comfyui: generateWithReferences needs at least one reference image'));
      return run(request, references[0], signal);
    },
  };
}
