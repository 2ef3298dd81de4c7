/**
 * A fake Replicate API: POST /v1/predictions (`{ version, input }`) or
 * /v1/models/{owner}/{name}/predictions (`{ input }`), GET /v1/predictions/{id} walking
 * `starting → processing → succeeded` over polls, POST …/cancel, `Prefer: wait`, output files
 * served from the fake itself, and errors as `{ title, detail, status }`.
 *
 * File inputs given as data: URLs are decoded and recorded (`received`); one that does not decode
 * is a 422. The output follows the fields an image model of each kind has: `image` with `scale`
 * (an upscaler such as nightmareai/real-esrgan) is that image scaled; `image` with `mask` (an
 * inpainting model: white repaints) is the image with the prompt's colour painted through the
 * mask; otherwise a picture in the prompt's colour.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
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
} from './server';

export interface FakeReplicateOptions {
  /** The token callers must send as `Authorization: Bearer`; unset accepts any request. */
  token?: string;
}

export interface FakeReplicateBehaviour extends FakeBehaviour {
  /** GETs before a prediction settles: the first answers `processing`, the n-th the outcome. Default 2. */
  pollsUntilDone?: number;
  /** How predictions end. Default `succeeded`. */
  outcome?: 'succeeded' | 'failed';
  /** The prediction's `error` when it fails. */
  error?: string;
  /** `output` as an array of URLs (most image models) or one URL string. Default `array`. */
  output?: 'array' | 'string';
  /** With `Prefer: wait`, answer the create request with the settled prediction. Default true. */
  completeOnWait?: boolean;
  /** Log lines the model prints, one more per poll (a sampler's tqdm bars, say); `logs` joins those printed so far. */
  logLines?: string[];
}

interface FakePrediction {
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  polls: number;
  settleAfter: number;
  outcome: 'succeeded' | 'failed';
  error: string | null;
  output: 'array' | 'string';
  logLines: string[];
  createdAt: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  404: 'Not found',
  422: 'Input validation failed',
  429: 'Request was throttled',
  500: 'Internal server error',
};

export const replicateError = (status: number, detail?: string) => ({
  title: TITLES[status] ?? (status >= 500 ? TITLES[500] : TITLES[400]),
  detail: detail ?? (status === 429 ? 'Request was throttled. Expected available in 1 second.' : status >= 500 ? 'Internal server error' : 'Bad request'),
  status,
});

const ASPECT: Record<string, [number, number]> = {
  '1:1': [1, 1],
  '16:9': [16, 9],
  '21:9': [21, 9],
  '3:2': [3, 2],
  '2:3': [2, 3],
  '4:5': [4, 5],
  '5:4': [5, 4],
  '3:4': [3, 4],
  '4:3': [4, 3],
  '9:16': [9, 16],
  '9:21': [9, 21],
};

/** One prediction's input as the fake received it: the data: URL files decoded, by input field. */
export interface ReplicateReceived {
  /** `owner/name` of an official model's route, else the `version` sent. */
  model: string;
  input: Record<string, unknown>;
  files: Record<string, ReceivedImage>;
}

export interface FakeReplicateServer extends FakeProviderServer<FakeReplicateBehaviour> {
  received: ReplicateReceived[];
}

const DATA_URL = /^data:([^;,]+)?(;base64)?,/;

export async function startFakeReplicate(options: FakeReplicateOptions = {}): Promise<FakeReplicateServer> {
  const predictions = new Map<string, FakePrediction>();
  const received: ReplicateReceived[] = [];
  const files = new Map<string, Record<string, ReceivedImage>>();

  const view = (p: FakePrediction, base: string) => ({
    id: p.id,
    model: p.model,
    version: p.version,
    input: p.input,
    logs: p.logLines.slice(0, p.status === 'succeeded' ? undefined : p.polls).join('\n'),
    output: p.status === 'succeeded' ? (p.output === 'array' ? [`${base}/files/${p.id}.png`] : `${base}/files/${p.id}.png`) : null,
    data_removed: false,
    error: p.status === 'failed' ? p.error : null,
    status: p.status,
    created_at: p.createdAt,
    urls: {
      cancel: `${base}/v1/predictions/${p.id}/cancel`,
      get: `${base}/v1/predictions/${p.id}`,
      web: `https://replicate.com/p/${p.id}`,
    },
  });

  const settle = (p: FakePrediction) => {
    p.status = p.outcome;
  };

  const server = await startFakeProvider<FakeReplicateBehaviour>({
    defaults: { pollsUntilDone: 2, outcome: 'succeeded', output: 'array', completeOnWait: true },
    isApi: (r) => r.path.startsWith('/v1/'),
    errorBody: (status, message) => replicateError(status, message),
    async route(request, response: ServerResponse, context) {
      const file = /^\/files\/(\w+)\.png$/.exec(request.path);
      if (request.method === 'GET' && file) {
        const p = predictions.get(file[1]);
        if (p?.status !== 'succeeded') return sendJson(response, 404, replicateError(404, 'Not found.'));
        return sendPng(response, await drawOutput(p.input, files.get(p.id) ?? {}));
      }
      if (options.token && request.headers.authorization !== `Bearer ${options.token}`) {
        return sendJson(response, 401, replicateError(401, 'You did not pass a valid authentication token'));
      }
      const behaviour = context.behaviour();

      const create = request.method === 'POST' && (request.path === '/v1/predictions' || /^\/v1\/models\/[\w.-]+\/[\w.-]+\/predictions$/.test(request.path));
      if (create) {
        const body = request.json as { version?: unknown; input?: Record<string, unknown> } | undefined;
        const official = request.path !== '/v1/predictions';
        if (!body || typeof body !== 'object') return sendJson(response, 400, replicateError(400, 'The request body is not valid JSON.'));
        if (!official && (typeof body.version !== 'string' || !body.version))
          return sendJson(response, 422, replicateError(422, '- version: version is required'));
        if (!body.input || (typeof body.input.prompt !== 'string' && typeof body.input.image !== 'string'))
          return sendJson(response, 422, replicateError(422, '- input: prompt is required'));
        const decoded: Record<string, ReceivedImage> = {};
        for (const [field, value] of Object.entries(body.input)) {
          const match = typeof value === 'string' ? DATA_URL.exec(value) : null;
          if (!match) continue;
          const image = match[2] ? await decodeReceived(Buffer.from((value as string).slice(match[0].length), 'base64')) : undefined;
          if (!image) return sendJson(response, 422, replicateError(422, `- input.${field}: cannot identify image file`));
          decoded[field] = image;
        }
        const p: FakePrediction = {
          id: randomBytes(13).toString('hex'),
          model: official ? request.path.split('/').slice(3, 5).join('/') : 'fake/model',
          version: official ? 'hidden' : String(body.version),
          input: body.input,
          status: 'starting',
          polls: 0,
          settleAfter: Math.max(1, behaviour.pollsUntilDone ?? 2),
          outcome: behaviour.outcome ?? 'succeeded',
          error: behaviour.outcome === 'failed' ? (behaviour.error ?? 'Prediction failed for an unknown reason.') : null,
          output: behaviour.output ?? 'array',
          logLines: behaviour.logLines ?? [],
          createdAt: new Date().toISOString(),
        };
        predictions.set(p.id, p);
        files.set(p.id, decoded);
        received.push({ model: official ? p.model : p.version, input: body.input, files: decoded });
        if (String(request.headers.prefer ?? '').startsWith('wait') && behaviour.completeOnWait !== false) settle(p);
        return sendJson(response, 201, view(p, context.url));
      }

      const match = /^\/v1\/predictions\/(\w+)(\/cancel)?$/.exec(request.path);
      const p = match ? predictions.get(match[1]) : undefined;
      if (!match) return sendJson(response, 404, replicateError(404, 'Not found.'));
      if (!p) return sendJson(response, 404, replicateError(404, 'Prediction not found.'));
      if (request.method === 'POST' && match[2]) {
        if (p.status === 'starting' || p.status === 'processing') p.status = 'canceled';
        return sendJson(response, 200, view(p, context.url));
      }
      if (request.method === 'GET' && !match[2]) {
        if (p.status === 'starting' || p.status === 'processing') {
          p.polls += 1;
          if (p.polls >= p.settleAfter) settle(p);
          else p.status = 'processing';
        }
        return sendJson(response, 200, view(p, context.url));
      }
      sendJson(response, 405, replicateError(400, 'Method not allowed.'));
    },
  });
  return Object.assign(server, { received });
}

/** The prediction's output image, by the kind of model its input fields show (see the top of this file). */
async function drawOutput(input: Record<string, unknown>, files: Record<string, ReceivedImage>): Promise<Buffer> {
  const image = files.image;
  const prompt = String(input.prompt ?? '');
  if (image && typeof input.scale === 'number') {
    return sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } })
      .resize(Math.round(image.width * input.scale), Math.round(image.height * input.scale), { kernel: 'nearest', fit: 'fill' })
      .png({ compressionLevel: 1 })
      .toBuffer();
  }
  const mask = files.mask;
  if (image && mask && mask.width === image.width && mask.height === image.height) return paintedOver(image, prompt, (p) => mask.rgba[p * 4]);
  const [width, height] = sizeOf(input);
  return fakeImage(prompt, width, height);
}

/** width/height inputs, or an aspect_ratio on a 1024 base, or 1024×1024. */
function sizeOf(input: Record<string, unknown>): [number, number] {
  if (typeof input.width === 'number' && typeof input.height === 'number') return [input.width, input.height];
  const ratio = typeof input.aspect_ratio === 'string' ? ASPECT[input.aspect_ratio] : undefined;
  if (ratio) return ratio[0] >= ratio[1] ? [1024, Math.round((1024 * ratio[1]) / ratio[0])] : [Math.round((1024 * ratio[0]) / ratio[1]), 1024];
  return [1024, 1024];
}
