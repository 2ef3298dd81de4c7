/**
 * A fake OpenAI Images API: POST /v1/images/generations (JSON) and /v1/images/edits (multipart,
 * `image[]` files), answering `{ created, data: [{ b64_json } | { url }] }` with a PNG in the
 * prompt's colour, and errors as `{ error: { message, type, param, code } }`.
 */
import { randomUUID } from 'node:crypto';
import { fakeImage, sendJson, sendPng, startFakeProvider, type FakeBehaviour, type FakeProviderServer, type RecordedRequest } from './server';

export interface FakeOpenAIOptions {
  /** The key callers must send as `Authorization: Bearer`; unset accepts any request. */
  apiKey?: string;
  /** Sizes the server accepts; `any` takes every `WxH`. Default 1024x1024, 1536x1024, 1024x1536 (gpt-image-1). */
  sizes?: readonly string[] | 'any';
}

export interface FakeOpenAIBehaviour extends FakeBehaviour {
  /** `auto` follows the request's response_format (base64 when absent, like gpt-image-1); `url` always answers a URL. */
  output?: 'auto' | 'url';
}

const ERROR_TYPES: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for images per minute. Please try again in 1s.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later.' },
};

export const openAIError = (status: number, message?: string, param: string | null = null) => {
  const known = ERROR_TYPES[status] ?? (status >= 500 ? ERROR_TYPES[500] : ERROR_TYPES[400]);
  return { error: { message: message ?? known.message, type: known.type, param, code: known.code } };
};

export function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeProviderServer<FakeOpenAIBehaviour>> {
  const sizes = options.sizes ?? ['1024x1024', '1536x1024', '1024x1536'];
  const files = new Map<string, Buffer>();

  return startFakeProvider<FakeOpenAIBehaviour>({
    defaults: { output: 'auto' },
    isApi: (r) => r.path.startsWith('/v1/'),
    errorBody: (status, message) => openAIError(status, message),
    async route(request, response, context) {
      const file = /^\/files\/([\w-]+\.png)$/.exec(request.path);
      if (request.method === 'GET' && file) {
        const png = files.get(file[1]);
        return png ? sendPng(response, png) : sendJson(response, 404, openAIError(404, 'File not found'));
      }
      const isGeneration = request.method === 'POST' && request.path === '/v1/images/generations';
      const isEdit = request.method === 'POST' && request.path === '/v1/images/edits';
      if (!isGeneration && !isEdit) return sendJson(response, 404, openAIError(404, `Invalid URL (${request.method} ${request.path})`));

      if (options.apiKey && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        return sendJson(response, 401, openAIError(401, `Incorrect API key provided: ${mask(request.headers.authorization)}.`));
      }
      const fields = isGeneration ? jsonFields(request) : formFields(request);
      if (!fields)
        return sendJson(response, 400, openAIError(400, isGeneration ? 'We could not parse the JSON body of your request.' : 'Expected multipart/form-data.'));
      if (typeof fields.prompt !== 'string' || !fields.prompt)
        return sendJson(response, 400, openAIError(400, "Missing required parameter: 'prompt'.", 'prompt'));
      if (isEdit && (request.form?.files.length ?? 0) === 0) return sendJson(response, 400, openAIError(400, "Missing required parameter: 'image'.", 'image'));

      const size = String(fields.size ?? '1024x1024');
      const match = /^(\d+)x(\d+)$/.exec(size);
      if (!match || (sizes !== 'any' && !sizes.includes(size))) {
        const supported = sizes === 'any' ? 'WxH' : sizes.map((s) => `'${s}'`).join(', ');
        return sendJson(response, 400, {
          error: {
            message: `Invalid value: '${size}'. Supported values are: ${supported}.`,
            type: 'invalid_request_error',
            param: 'size',
            code: 'invalid_value',
          },
        });
      }
      const png = await fakeImage(fields.prompt, Number(match[1]), Number(match[2]));
      const wantsUrl = context.behaviour().output === 'url' || fields.response_format === 'url';
      if (wantsUrl) {
        const name = `${randomUUID()}.png`;
        files.set(name, png);
        return sendJson(response, 200, { created: Math.floor(Date.now() / 1000), data: [{ url: `${context.url}/files/${name}` }] });
      }
      sendJson(response, 200, { created: Math.floor(Date.now() / 1000), data: [{ b64_json: png.toString('base64') }] });
    },
  });
}

const jsonFields = (request: RecordedRequest): Record<string, unknown> | undefined =>
  request.json && typeof request.json === 'object' ? (request.json as Record<string, unknown>) : undefined;

const formFields = (request: RecordedRequest): Record<string, unknown> | undefined =>
  request.form ? Object.fromEntries(Object.entries(request.form.fields).map(([k, v]) => [k, v[0]])) : undefined;

const mask = (header: string | undefined) => {
  const key = header?.replace(/^Bearer /, '') ?? '';
  return key.length > 8 ? `${key.slice(0, 3)}***${key.slice(-4)}` : '***';
};
