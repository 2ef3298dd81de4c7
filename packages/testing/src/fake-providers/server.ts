/**
 * The plumbing the provider fakes share: a loopback HTTP server that records every request,
 * scripted failures (an HTTP error in the provider's shape, or a dropped connection), slow or
 * hanging answers, and small real PNGs whose colour comes from the prompt.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

export interface RecordedFile {
  field: string;
  filename: string;
  type: string;
  data: Buffer;
}

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/images/generations`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, when it was JSON (loosely typed, for assertions). */
  // biome-ignore lint/suspicious/noExplicitAny: a recorded provider request's JSON, read field by field by the provider tests' assertions
  json?: any;
  /** The body of a multipart/form-data request: text fields (repeated names kept) and files. */
  form?: { fields: Record<string, string[]>; files: RecordedFile[] };
  raw: Buffer;
}

/**
 * One scripted answer: an HTTP error in the provider's own body shape, or a dropped connection.
 * With `match` (e.g. `GET /v1/predictions/`) it waits for a request whose `METHOD path` starts so.
 */
export type FakeFailure = ({ status: number; message?: string; retryAfter?: string | number } | { network: true }) & { match?: string };

export interface FakeBehaviour {
  /** Answered in order to the next API requests (downloads excluded) before normal service resumes. */
  failures?: FakeFailure[];
  /** Wait before answering API requests, ms; `Infinity` never answers (the client must time out or abort). */
  delayMs?: number;
}

/** `n` copies of a failure, for `failures: [...times(2, { status: 500 })]`. */
export const times = (n: number, failure: FakeFailure): FakeFailure[] => Array.from({ length: n }, () => failure);

export interface FakeProviderServer<B extends FakeBehaviour> {
  /** `http://127.0.0.1:<port>`, the provider's base URL. */
  url: string;
  /** Every request received, in order (downloads included). */
  requests: RecordedRequest[];
  /** Replaces the scripted behaviour (unset fields return to their defaults). */
  setBehaviour(behaviour: B): void;
  stop(): Promise<void>;
}

/** The colour a fake draws for a prompt: red and green from its SHA-256, blue from its length. */
export function fakeImageColour(prompt: string): { r: number; g: number; b: number } {
  const hash = createHash('sha256').update(prompt).digest();
  return { r: hash[0], g: hash[1], b: prompt.length % 256 };
}

/** A real PNG of `width`×`height` in the prompt's colour. */
export function fakeImage(prompt: string, width: number, height: number): Promise<Buffer> {
  const w = clampSide(width);
  const h = clampSide(height);
  return sharp({ create: { width: w, height: h, channels: 3, background: fakeImageColour(prompt) } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** An image a fake received, decoded: its size, whether it has alpha, and its pixels as RGBA. */
export interface ReceivedImage {
  width: number;
  height: number;
  format: string;
  hasAlpha: boolean;
  /** width × height × 4 bytes. */
  rgba: Buffer;
}

/** Decodes bytes a client sent as an image (base64 already undone); undefined when they are no image. */
export async function decodeReceived(data: Buffer): Promise<ReceivedImage | undefined> {
  try {
    const image = sharp(data, { failOn: 'error' });
    const meta = await image.metadata();
    const rgba = await image.ensureAlpha().raw().toBuffer();
    return { width: meta.width ?? 0, height: meta.height ?? 0, format: meta.format ?? '', hasAlpha: !!meta.hasAlpha, rgba };
  } catch {
    return undefined;
  }
}

/**
 * What a fake draws for an edit: `input` with the prompt's colour painted where `repaint` says
 * (a value per pixel, 0..255: how much changes), as a PNG of the input's size.
 */
export function paintedOver(input: ReceivedImage, prompt: string, repaint: (pixel: number) => number): Promise<Buffer> {
  const { r, g, b } = fakeImageColour(prompt);
  const out = Buffer.from(input.rgba);
  for (let p = 0; p < input.width * input.height; p++) {
    const k = repaint(p) / 255;
    if (k === 0) continue;
    const i = p * 4;
    out[i] = Math.round(out[i] * (1 - k) + r * k);
    out[i + 1] = Math.round(out[i + 1] * (1 - k) + g * k);
    out[i + 2] = Math.round(out[i + 2] * (1 - k) + b * k);
    out[i + 3] = Math.round(out[i + 3] * (1 - k) + 255 * k);
  }
  return sharp(out, { raw: { width: input.width, height: input.height, channels: 4 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

const clampSide = (v: number) => (Number.isInteger(v) && v >= 1 ? Math.min(v, 4096) : 64);

export interface FakeContext<B extends FakeBehaviour> {
  url: string;
  behaviour: () => B;
}

export type FakeRoute = (request: RecordedRequest, response: ServerResponse) => Promise<void>;

export const sendJson = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
};

export const sendPng = (response: ServerResponse, png: Buffer): void => {
  response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
  response.end(png);
};

/**
 * Starts a fake on 127.0.0.1. `isApi` tells which requests the scripted failures and delays apply
 * to; `errorBody` renders a scripted HTTP failure in the provider's shape; `route` serves the rest.
 */
export async function startFakeProvider<B extends FakeBehaviour>(options: {
  defaults: B;
  isApi: (request: RecordedRequest) => boolean;
  errorBody: (status: number, message: string | undefined) => unknown;
  route: (request: RecordedRequest, response: ServerResponse, context: FakeContext<B>) => Promise<void>;
  /** Hooks more onto the HTTP server (a websocket endpoint); called once it listens. */
  attach?: (server: Server, context: FakeContext<B>) => void;
}): Promise<FakeProviderServer<B>> {
  let behaviour: B = { ...options.defaults };
  let pendingFailures: FakeFailure[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let url = '';
  const takeFailure = (line: string): FakeFailure | undefined => {
    const index = pendingFailures.findIndex((f) => !f.match || line.startsWith(f.match));
    return index < 0 ? undefined : pendingFailures.splice(index, 1)[0];
  };

  const handle = async (incoming: IncomingMessage, response: ServerResponse) => {
    const recorded = await record(incoming);
    requests.push(recorded);
    const api = options.isApi(recorded);
    if (api && behaviour.delayMs) {
      if (behaviour.delayMs === Infinity) return; // hangs until the client gives up or stop()
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, behaviour.delayMs);
        timers.add(timer);
      });
      if (response.destroyed) return;
    }
    const failure = api ? takeFailure(`${recorded.method} ${recorded.path}`) : undefined;
    if (failure && 'network' in failure) {
      incoming.socket.destroy();
      return;
    }
    if (failure) {
      const headers: Record<string, string> = failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {};
      sendJson(response, failure.status, options.errorBody(failure.status, failure.message), headers);
      return;
    }
    await options.route(recorded, response, { url, behaviour: () => behaviour });
  };

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: Error) => {
      if (!response.headersSent) sendJson(response, 500, { fakeError: error.message });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  options.attach?.(server, { url, behaviour: () => behaviour });

  return {
    url,
    requests,
    setBehaviour(next) {
      behaviour = { ...options.defaults, ...next };
      pendingFailures = [...(next.failures ?? [])];
    },
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function record(incoming: IncomingMessage): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const recorded: RecordedRequest = { method: incoming.method ?? 'GET', path: incoming.url ?? '/', headers: incoming.headers, raw };
  const type = incoming.headers['content-type'] ?? '';
  if (type.includes('application/json') && raw.length > 0) {
    try {
      recorded.json = JSON.parse(raw.toString('utf8'));
    } catch {
      // Recorded raw; the route answers the provider's "invalid JSON" error.
    }
  } else if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://fake.invalid/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(raw) }).formData();
    const fields: Record<string, string[]> = {};
    const files: RecordedFile[] = [];
    const entries: Array<[string, FormDataEntryValue]> = [];
    form.forEach((value, field) => {
      entries.push([field, value]);
    });
    for (const [field, value] of entries) {
      if (typeof value === 'string') {
        fields[field] ??= [];
        fields[field].push(value);
      } else files.push({ field, filename: value.name, type: value.type, data: Buffer.from(await value.arrayBuffer()) });
    }
    recorded.form = { fields, files };
  }
  return recorded;
}
