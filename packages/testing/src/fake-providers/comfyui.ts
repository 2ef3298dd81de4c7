/**
 * A fake ComfyUI server (HTTP and websocket), answering as ComfyUI 0.3.x does (shapes in the
 * README beside this file): POST /prompt with validation errors in ComfyUI's shape, one prompt
 * executing at a time with `execution_start` → `executing` → `progress` … → `executed` →
 * `executing {node: null}` → `execution_success` sent to the prompt's client over /ws, `status`
 * broadcast on queue changes, GET /history/{id}, GET|POST /queue, POST /interrupt,
 * POST /upload/image and GET /view. Images are small real PNGs in the positive prompt's colour.
 *
 * The saved image follows the graph: an empty latent gives a picture in the prompt's colour; a
 * latent encoded from a LoadImage gives that image with the prompt's colour painted over it by the
 * sampler's denoise, or, through a noise mask (SetLatentNoiseMask, VAEEncodeForInpaint), where the
 * mask says (LoadImageMask and LoadImage's MASK: 1 − alpha); ImageScaleBy and ImageUpscaleWithModel
 * (4×) scale. Uploads are decoded and recorded in `received`.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import sharp from 'sharp';
import {
  decodeReceived,
  fakeImage,
  paintedOver,
  sendJson,
  sendPng,
  startFakeProvider,
  type FakeBehaviour,
  type FakeProviderServer,
  type ReceivedImage,
  type RecordedRequest,
} from './server';

export interface FakeComfyUIBehaviour extends FakeBehaviour {
  /** Sampling steps each prompt reports as `progress`. Default 4. */
  steps?: number;
  /** Pause between steps, ms. Default 5. */
  stepMs?: number;
  /**
   * `on` (default); `refuse` answers the websocket upgrade with 403; `drop` closes the prompt's
   * socket after `execution_start`; `silent` accepts sockets but sends nothing (a proxy that passes
   * the handshake only).
   */
  websocket?: 'on' | 'refuse' | 'drop' | 'silent';
  /** The running prompt waits at this step until it is interrupted. */
  holdAtStep?: number;
  /** Another client's prompt occupies the server until interrupted: new prompts stay queued. */
  busy?: boolean;
  /** Every prompt raises this in its sampler (`execution_error`). */
  executionError?: { type: string; message: string };
}

type Workflow = Record<string, { class_type?: unknown; inputs?: Record<string, unknown> }>;

export interface ComfyUploadReceived {
  /** The name it was stored under (`subfolder/name` when in a subfolder). */
  name: string;
  fields: Record<string, string>;
  image?: ReceivedImage;
}

interface FakePrompt {
  id: string;
  number: number;
  prompt: Workflow;
  clientId: string;
  state: 'pending' | 'running' | 'done';
  interrupted: boolean;
  wake?: () => void;
  history?: Record<string, unknown>;
}

export interface FakeComfyUIServer extends FakeProviderServer<FakeComfyUIBehaviour> {
  /** Ids of the running and the waiting prompts (the foreign one of `busy` included). */
  queue(): { running: string[]; pending: string[] };
  /** Files uploaded to the input folder, by name. */
  uploads: Map<string, Buffer>;
  /** Every POST /upload/image: the form's fields and the file, decoded. */
  received: ComfyUploadReceived[];
  /** Websocket connections accepted so far. */
  socketsOpened(): number;
}

const NODE_CLASSES = new Set([
  'KSampler',
  'KSamplerAdvanced',
  'CheckpointLoaderSimple',
  'EmptyLatentImage',
  'CLIPTextEncode',
  'VAEDecode',
  'VAEEncode',
  'SaveImage',
  'PreviewImage',
  'LoadImage',
  'LoadImageMask',
  'SetLatentNoiseMask',
  'VAEEncodeForInpaint',
  'ImageScaleBy',
  'UpscaleModelLoader',
  'ImageUpscaleWithModel',
]);
const OUTPUT_CLASSES = new Set(['SaveImage', 'PreviewImage']);
const isLink = (v: unknown): v is [string, number] => Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'number';

/** ComfyUI's top-level validation error. */
export const comfyError = (type: string, message: string, details = '', nodeErrors: unknown = {}) => ({
  error: { type, message, details, extra_info: {} },
  node_errors: nodeErrors,
});

export async function startFakeComfyUI(): Promise<FakeComfyUIServer> {
  const prompts = new Map<string, FakePrompt>();
  const pending: string[] = [];
  let running: FakePrompt | null = null;
  let foreign: FakePrompt | null = null;
  let number = 0;
  let opened = 0;
  const uploads = new Map<string, Buffer>();
  const received: ComfyUploadReceived[] = [];
  const outputs = new Map<string, Buffer>();
  const sockets = new Map<string, WebSocket>();
  let behaviour: () => FakeComfyUIBehaviour = () => ({});

  const send = (clientId: string | null, type: string, data: Record<string, unknown>) => {
    if (behaviour().websocket === 'silent') return;
    const text = JSON.stringify({ type, data });
    const targets = clientId === null ? [...sockets.values()] : [sockets.get(clientId)].filter((s): s is WebSocket => !!s);
    for (const socket of targets) if (socket.readyState === socket.OPEN) socket.send(text);
  };
  const queueInfo = () => ({ exec_info: { queue_remaining: pending.length + (running ? 1 : 0) + (foreign ? 1 : 0) } });
  const broadcastStatus = () => send(null, 'status', { status: queueInfo() });
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const now = () => Date.now();

  const finish = (p: FakePrompt, status: 'success' | 'error', messages: Array<[string, Record<string, unknown>]>, out: Record<string, unknown> = {}) => {
    p.state = 'done';
    p.history = {
      prompt: [p.number, p.id, p.prompt, { client_id: p.clientId }, Object.keys(p.prompt).filter((id) => OUTPUT_CLASSES.has(String(p.prompt[id].class_type)))],
      outputs: out,
      status: { status_str: status, completed: status === 'success', messages },
      meta: Object.fromEntries(Object.keys(out).map((id) => [id, { node_id: id, display_node: id, parent_node: null, real_node_id: id }])),
    };
  };

  /** Runs one prompt the way ComfyUI's executor reports it. */
  const execute = async (p: FakePrompt) => {
    const b = behaviour();
    const ids = Object.keys(p.prompt);
    const sampler = ids.find((id) => String(p.prompt[id].class_type).startsWith('KSampler'));
    const save = ids.find((id) => OUTPUT_CLASSES.has(String(p.prompt[id].class_type)))!;
    const started = { prompt_id: p.id, timestamp: now() };
    const messages: Array<[string, Record<string, unknown>]> = [['execution_start', started]];
    send(p.clientId, 'execution_start', started);
    if (b.websocket === 'drop') sockets.get(p.clientId)?.terminate();
    const cached = { nodes: [], prompt_id: p.id, timestamp: now() };
    messages.push(['execution_cached', cached]);
    send(p.clientId, 'execution_cached', cached);
    const steps = b.steps ?? 4;
    if (sampler) {
      send(p.clientId, 'executing', { node: sampler, display_node: sampler, prompt_id: p.id });
      for (let step = 1; step <= steps; step++) {
        await wait(b.stepMs ?? 5);
        if (b.holdAtStep === step && !p.interrupted) await new Promise<void>((resolve) => (p.wake = resolve));
        if (p.interrupted) {
          const data = { prompt_id: p.id, node_id: sampler, node_type: p.prompt[sampler].class_type, executed: [], timestamp: now() };
          messages.push(['execution_interrupted', data]);
          send(p.clientId, 'execution_interrupted', data);
          return finish(p, 'error', messages);
        }
        if (b.executionError && step === 1) {
          const data = {
            prompt_id: p.id,
            node_id: sampler,
            node_type: p.prompt[sampler].class_type,
            executed: [],
            exception_message: b.executionError.message,
            exception_type: b.executionError.type,
            traceback: ['  File "execution.py", line 1, in execute\n'],
            current_inputs: {},
            current_outputs: {},
            timestamp: now(),
          };
          messages.push(['execution_error', data]);
          send(p.clientId, 'execution_error', data);
          return finish(p, 'error', messages);
        }
        send(p.clientId, 'progress', { value: step, max: steps, prompt_id: p.id, node: sampler });
      }
    }
    send(p.clientId, 'executing', { node: save, display_node: save, prompt_id: p.id });
    const filename = `promptpix_${String(p.number).padStart(5, '0')}_.png`;
    outputs.set(filename, await drawOutput(p.prompt, save, uploads));
    const images = [{ filename, subfolder: '', type: 'output' }];
    send(p.clientId, 'executed', { node: save, display_node: save, output: { images }, prompt_id: p.id });
    send(p.clientId, 'executing', { node: null, prompt_id: p.id });
    const success = { prompt_id: p.id, timestamp: now() };
    messages.push(['execution_success', success]);
    send(p.clientId, 'execution_success', success);
    finish(p, 'success', messages, { [save]: { images } });
  };

  const pump = () => {
    if (running || foreign) return;
    const next = pending.shift();
    if (!next) return broadcastStatus();
    const p = prompts.get(next)!;
    running = p;
    p.state = 'running';
    broadcastStatus();
    void execute(p)
      .catch(() => finish(p, 'error', []))
      .finally(() => {
        running = null;
        pump();
      });
  };

  const queueItem = (p: FakePrompt) => [p.number, p.id, p.prompt, { client_id: p.clientId }, []];

  const route = async (request: RecordedRequest, response: ServerResponse) => {
    const url = new URL(request.path, 'http://fake.invalid');
    const line = `${request.method} ${url.pathname}`;
    if (line === 'POST /prompt') return postPrompt(request, response);
    const history = /^GET \/history\/([\w-]+)$/.exec(line);
    if (history) {
      const p = prompts.get(history[1]);
      return sendJson(response, 200, p?.history ? { [p.id]: p.history } : {});
    }
    if (line === 'GET /queue') {
      const run = [running, foreign].filter((p): p is FakePrompt => !!p);
      return sendJson(response, 200, { queue_running: run.map(queueItem), queue_pending: pending.map((id) => queueItem(prompts.get(id)!)) });
    }
    if (line === 'POST /queue') {
      const body = request.json as { delete?: unknown; clear?: unknown } | undefined;
      if (body?.clear) pending.splice(0);
      if (Array.isArray(body?.delete)) {
        for (const id of body.delete) {
          const at = pending.indexOf(String(id));
          if (at >= 0) pending.splice(at, 1);
        }
      }
      broadcastStatus();
      response.writeHead(200).end();
      return;
    }
    if (line === 'POST /interrupt') {
      const target = (request.json as { prompt_id?: unknown } | undefined)?.prompt_id;
      for (const p of [running, foreign]) {
        if (!p || (target !== undefined && target !== p.id)) continue;
        p.interrupted = true;
        p.wake?.();
        if (p === foreign) {
          foreign = null;
          finish(p, 'error', [['execution_interrupted', { prompt_id: p.id, node_id: '3', node_type: 'KSampler', executed: [], timestamp: now() }]]);
          pump();
        }
      }
      response.writeHead(200).end();
      return;
    }
    if (line === 'POST /upload/image') {
      const file = request.form?.files.find((f) => f.field === 'image');
      if (!file?.filename) return void response.writeHead(400).end();
      const field = (name: string) => request.form?.fields[name]?.[0];
      const subfolder = field('subfolder') ?? '';
      const type = field('type') ?? 'input';
      let name = file.filename;
      const key = (n: string) => (subfolder ? `${subfolder}/${n}` : n);
      if (field('overwrite') !== 'true' && field('overwrite') !== '1') {
        const dot = name.lastIndexOf('.');
        for (let i = 1; uploads.has(key(name)) && !uploads.get(key(name))!.equals(file.data); i++)
          name = `${file.filename.slice(0, dot)} (${i})${file.filename.slice(dot)}`;
      }
      uploads.set(key(name), file.data);
      const fields = Object.fromEntries(Object.entries(request.form?.fields ?? {}).map(([k, v]) => [k, v[0]]));
      const image = await decodeReceived(file.data);
      received.push({ name: key(name), fields, ...(image && { image }) });
      return sendJson(response, 200, { name, subfolder, type });
    }
    if (line === 'GET /view') {
      const filename = url.searchParams.get('filename') ?? '';
      const type = url.searchParams.get('type') ?? 'output';
      if (!filename || filename.startsWith('/') || filename.includes('..')) return void response.writeHead(400).end();
      if (type === 'output') {
        const drawn = outputs.get(filename);
        if (drawn) return sendPng(response, drawn);
      }
      if (type === 'input') {
        const subfolder = url.searchParams.get('subfolder');
        const data = uploads.get(subfolder ? `${subfolder}/${filename}` : filename);
        if (data) return sendPng(response, data);
      }
      return void response.writeHead(404).end();
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found');
  };

  const postPrompt = (request: RecordedRequest, response: ServerResponse) => {
    const body = request.json as { prompt?: unknown; client_id?: unknown } | undefined;
    if (!body || typeof body !== 'object' || !('prompt' in body)) return sendJson(response, 400, { error: 'no prompt', node_errors: [] });
    const workflow = body.prompt as Workflow;
    const invalid = validate(workflow, uploads);
    if (invalid) return sendJson(response, 400, invalid);
    const p: FakePrompt = {
      id: randomUUID(),
      number: number++,
      prompt: workflow,
      clientId: typeof body.client_id === 'string' ? body.client_id : '',
      state: 'pending',
      interrupted: false,
    };
    prompts.set(p.id, p);
    pending.push(p.id);
    sendJson(response, 200, { prompt_id: p.id, number: p.number, node_errors: {} });
    setImmediate(pump);
    broadcastStatus();
  };

  const server = await startFakeProvider<FakeComfyUIBehaviour>({
    defaults: { steps: 4, stepMs: 5, websocket: 'on' },
    isApi: (r) => r.path.startsWith('/prompt') || r.path.startsWith('/history') || r.path.startsWith('/queue') || r.path.startsWith('/upload'),
    errorBody: (status, message) =>
      status >= 500
        ? { error: { type: 'server_error', message: message ?? 'Internal Server Error', details: '', extra_info: {} } }
        : comfyError('invalid_prompt', message ?? 'Bad request'),
    route: (request, response) => route(request, response),
    attach(http, context) {
      behaviour = context.behaviour;
      const wss = new WebSocketServer({ noServer: true });
      http.on('upgrade', (incoming, socket, head) => {
        const url = new URL(incoming.url ?? '/', 'http://fake.invalid');
        if (url.pathname !== '/ws' || behaviour().websocket === 'refuse') {
          socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
          return;
        }
        wss.handleUpgrade(incoming, socket, head, (ws) => {
          opened++;
          const sid = url.searchParams.get('clientId') || randomUUID().replace(/-/g, '');
          sockets.get(sid)?.terminate();
          sockets.set(sid, ws);
          ws.on('close', () => sockets.get(sid) === ws && sockets.delete(sid));
          if (behaviour().websocket !== 'silent') ws.send(JSON.stringify({ type: 'status', data: { status: queueInfo(), sid } }));
        });
      });
      http.on('close', () => {
        for (const ws of wss.clients) ws.terminate();
        wss.close();
      });
    },
  });

  const setBehaviour = server.setBehaviour.bind(server);
  const stop = server.stop.bind(server);
  return Object.assign(server, {
    uploads,
    received,
    socketsOpened: () => opened,
    queue: () => ({ running: [running, foreign].filter((p): p is FakePrompt => !!p).map((p) => p.id), pending: [...pending] }),
    setBehaviour(next: FakeComfyUIBehaviour) {
      setBehaviour(next);
      if (next.busy && !foreign) {
        foreign = { id: randomUUID(), number: number++, prompt: {}, clientId: 'someone-else', state: 'running', interrupted: false };
        prompts.set(foreign.id, foreign);
      } else if (!next.busy && foreign) {
        foreign = null;
        pump();
      }
    },
    async stop() {
      for (const ws of sockets.values()) ws.terminate();
      for (const p of prompts.values()) {
        p.interrupted = true;
        p.wake?.();
      }
      await stop();
    },
  });
}

/** ComfyUI's checks that the fake can make: known node classes, an output, links to real nodes, integer inputs, uploaded images. */
function validate(workflow: unknown, uploads: Map<string, Buffer>): unknown {
  if (!workflow || typeof workflow !== 'object' || Array.isArray(workflow)) return comfyError('invalid_prompt', 'Invalid prompt: prompt must be an object', '');
  const nodes = workflow as Workflow;
  for (const [id, node] of Object.entries(nodes)) {
    if (!node || typeof node.class_type !== 'string')
      return comfyError('invalid_prompt', 'Cannot execute because a node is missing the class_type property.', `Node ID '#${id}'`);
    if (!NODE_CLASSES.has(node.class_type))
      return comfyError('invalid_prompt', `Cannot execute because node ${node.class_type} does not exist.`, `Node ID '#${id}'`);
  }
  const outputs = Object.keys(nodes).filter((id) => OUTPUT_CLASSES.has(String(nodes[id].class_type)));
  if (outputs.length === 0) return comfyError('prompt_no_outputs', 'Prompt has no outputs', '', []);
  const nodeErrors: Record<string, { errors: unknown[]; dependent_outputs: string[]; class_type: string }> = {};
  const fail = (id: string, type: string, message: string, details: string, input: string) => {
    nodeErrors[id] ??= { errors: [], dependent_outputs: outputs, class_type: String(nodes[id].class_type) };
    nodeErrors[id].errors.push({
      type,
      message,
      details,
      extra_info: { input_name: input },
    });
  };
  for (const [id, node] of Object.entries(nodes)) {
    for (const [input, value] of Object.entries(node.inputs ?? {})) {
      if (isLink(value) && !nodes[value[0]]) fail(id, 'exception_during_inner_validation', 'Exception when validating inner node', `'${value[0]}'`, input);
    }
    const ints =
      node.class_type === 'EmptyLatentImage'
        ? ['width', 'height', 'batch_size']
        : String(node.class_type).startsWith('KSampler')
          ? ['seed', 'noise_seed', 'steps']
          : [];
    for (const input of ints) {
      const value = node.inputs?.[input];
      if (value !== undefined && !isLink(value) && !(Number.isInteger(value) && (value as number) >= 0))
        fail(id, 'invalid_input_type', 'Failed to convert an input value to a INT value', `${input}, ${String(value)}`, input);
    }
    if (node.class_type === 'LoadImage' || node.class_type === 'LoadImageMask') {
      const image = node.inputs?.image;
      if (typeof image !== 'string' || !uploads.has(image))
        fail(id, 'custom_validation_failed', 'Custom validation failed for node', `image - Invalid image file: ${String(image)}`, 'image');
    }
    if (node.class_type === 'LoadImageMask' && !['alpha', 'red', 'green', 'blue'].includes(String(node.inputs?.channel)))
      fail(id, 'value_not_in_list', 'Value not in list', `channel: '${String(node.inputs?.channel)}' not in ['alpha', 'red', 'green', 'blue']`, 'channel');
    const bounded: Array<[string, number, number]> = String(node.class_type).startsWith('KSampler')
      ? [['denoise', 0, 1]]
      : node.class_type === 'ImageScaleBy'
        ? [['scale_by', 0.01, 8]]
        : [];
    for (const [input, min, max] of bounded) {
      const value = node.inputs?.[input];
      if (value === undefined || isLink(value)) continue;
      if (typeof value !== 'number') fail(id, 'invalid_input_type', 'Failed to convert an input value to a FLOAT value', `${input}, ${String(value)}`, input);
      else if (value > max) fail(id, 'value_bigger_than_max', `Value ${value} bigger than max of ${max}`, `${input}`, input);
      else if (value < min) fail(id, 'value_smaller_than_min', `Value ${value} smaller than min of ${min}`, `${input}`, input);
    }
  }
  if (Object.keys(nodeErrors).length > 0) return comfyError('prompt_outputs_failed_validation', 'Prompt outputs failed validation', '', nodeErrors);
  return null;
}

/** What the fake draws for the output node `save` (see the top of this file), as a PNG. */
async function drawOutput(workflow: Workflow, save: string, uploads: Map<string, Buffer>): Promise<Buffer> {
  const node = (link: unknown) => (isLink(link) ? workflow[link[0]] : undefined);
  const loaded = async (name: unknown) => (await decodeReceived(uploads.get(String(name)) ?? Buffer.alloc(0)))!;
  const scaled = async (image: ReceivedImage, by: number) =>
    (await decodeReceived(
      await sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } })
        .resize(Math.max(1, Math.round(image.width * by)), Math.max(1, Math.round(image.height * by)), { kernel: 'nearest', fit: 'fill' })
        .png()
        .toBuffer(),
    ))!;
  /** A MASK output: how much each pixel may change, 0..255. */
  const maskOf = async (link: unknown): Promise<((p: number) => number) | undefined> => {
    const source = node(link);
    if (source?.class_type !== 'LoadImageMask' && !(source?.class_type === 'LoadImage' && isLink(link) && link[1] === 1)) return undefined;
    const image = await loaded(source.inputs?.image);
    const channel = source.class_type === 'LoadImage' ? 'alpha' : String(source.inputs?.channel);
    const at = { red: 0, green: 1, blue: 2, alpha: 3 }[channel] ?? 3;
    return (p) => (at === 3 ? 255 - image.rgba[p * 4 + 3] : image.rgba[p * 4 + at]);
  };
  /** A LATENT: the pixels it was encoded from (undefined for an empty latent) and its noise mask. */
  const latentOf = async (link: unknown): Promise<{ pixels?: ReceivedImage; mask?: (p: number) => number; width: number; height: number }> => {
    const source = node(link);
    const inputs = source?.inputs ?? {};
    if (source?.class_type === 'SetLatentNoiseMask') return { ...(await latentOf(inputs.samples)), mask: await maskOf(inputs.mask) };
    if (source?.class_type === 'VAEEncode' || source?.class_type === 'VAEEncodeForInpaint') {
      const pixels = await imageOf(inputs.pixels);
      return { pixels, width: pixels.width, height: pixels.height, mask: source.class_type === 'VAEEncodeForInpaint' ? await maskOf(inputs.mask) : undefined };
    }
    const size = (v: unknown) => (typeof v === 'number' ? v : 512);
    return { width: size(inputs.width), height: size(inputs.height) };
  };
  const imageOf = async (link: unknown): Promise<ReceivedImage> => {
    const source = node(link);
    const inputs = source?.inputs ?? {};
    switch (source?.class_type) {
      case 'LoadImage':
        return loaded(inputs.image);
      case 'ImageScaleBy':
        return scaled(await imageOf(inputs.image), Number(inputs.scale_by));
      case 'ImageUpscaleWithModel':
        return scaled(await imageOf(inputs.image), 4);
      case 'VAEDecode': {
        const sampler = node(inputs.samples);
        const s = sampler?.inputs ?? {};
        const positive = node(s.positive)?.inputs?.text;
        const text = typeof positive === 'string' ? positive : '';
        const latent = await latentOf(s.latent_image);
        if (!latent.pixels) return (await decodeReceived(await fakeImage(text, latent.width, latent.height)))!;
        const denoise = typeof s.denoise === 'number' ? s.denoise : 1;
        const mask = latent.mask;
        return (await decodeReceived(await paintedOver(latent.pixels, text, (p) => (mask ? mask(p) : 255) * denoise)))!;
      }
      default:
        return (await decodeReceived(await fakeImage('', 512, 512)))!;
    }
  };
  const image = await imageOf(workflow[save].inputs?.images);
  return sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}
