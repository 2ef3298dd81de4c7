/**
 * A fake OpenAI Images API: POST /v1/images/generations (JSON) and /v1/images/edits (multipart:
 * `image` or `image[]` files, an optional `mask`), answering `{ created, data: [{ b64_json } | { url }] }`
 * with a PNG in the prompt's colour, and errors as `{ error: { message, type, param, code } }`.
 *
 * An edit with a mask draws the first image with the prompt's colour painted where the mask is
 * transparent; `background: "transparent"` (GPT image models only) draws the colour in the middle
 * of a transparent picture. The images of every edit are decoded and recorded in `received`.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import {
  decodeReceived,
  fakeImage,
  fakeImageColour,
  paintedOver,
  sendJson,
  sendPng,
  startFakeProvider,
  type FakeBehaviour,
  type FakeProviderServer,
  type ReceivedImage,
  type RecordedRequest,
} from './server';

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

/** What one POST /v1/images/edits carried: its text fields, the image files (by field name) and the mask, decoded. */
export interface OpenAIReceivedEdit {
  fields: Record<string, string>;
  /** `image` or `image[]`, as the client sent them. */
  imageField: string;
  images: ReceivedImage[];
  mask?: ReceivedImage;
}

export interface FakeOpenAIServer extends FakeProviderServer<FakeOpenAIBehaviour> {
  edits: OpenAIReceivedEdit[];
}

const BACKGROUNDS = ['transparent', 'opaque', 'auto'];

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  const sizes = options.sizes ?? ['1024x1024', '1536x1024', '1024x1536'];
  const files = new Map<string, Buffer>();
  const edits: OpenAIReceivedEdit[] = [];
  const invalid = (response: Parameters<typeof sendJson>[0], message: string, param: string) =>
    sendJson(response, 400, { error: { message, type: 'invalid_request_error', param, code: 'invalid_value' } });

  const server = await startFakeProvider<FakeOpenAIBehaviour>({
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
      const [width, height] = [Number(match[1]), Number(match[2])];
      const model = String(fields.model ?? 'dall-e-2');
      const gptImage = model.startsWith('gpt-image');
      if (fields.background !== undefined) {
        if (!gptImage) return invalid(response, `Unknown parameter: 'background'.`, 'background');
        if (!BACKGROUNDS.includes(String(fields.background)))
          return invalid(response, `Invalid value: '${String(fields.background)}'. Supported values are: 'transparent', 'opaque', and 'auto'.`, 'background');
        if (fields.background === 'transparent' && !['png', 'webp', undefined].includes(fields.output_format as string | undefined))
          return invalid(response, 'Transparent background is only supported with output_format png or webp.', 'background');
      }
      let png: Buffer;
      if (isEdit) {
        const edit = await readEdit(request);
        if (typeof edit === 'string') return invalid(response, edit, edit.includes('mask') ? 'mask' : 'image');
        if (!gptImage && edit.images.length > 1)
          return invalid(response, `Invalid value: '${model}' takes one image; ${edit.images.length} were given.`, 'image');
        const first = edit.images[0];
        if (edit.mask && (edit.mask.width !== first.width || edit.mask.height !== first.height))
          return invalid(response, 'Invalid mask image: the mask and the image must have the same dimensions.', 'mask');
        edits.push(edit);
        png = edit.mask ? await drawEdit(first, edit.mask, fields.prompt, width, height) : await fakeImage(fields.prompt, width, height);
      } else {
        png = fields.background === 'transparent' ? await cutOut(fields.prompt, width, height) : await fakeImage(fields.prompt, width, height);
      }
      const wantsUrl = context.behaviour().output === 'url' || fields.response_format === 'url';
      if (wantsUrl) {
        const name = `${randomUUID()}.png`;
        files.set(name, png);
        return sendJson(response, 200, { created: Math.floor(Date.now() / 1000), data: [{ url: `${context.url}/files/${name}` }] });
      }
      sendJson(response, 200, { created: Math.floor(Date.now() / 1000), data: [{ b64_json: png.toString('base64') }] });
    },
  });
  return Object.assign(server, { edits });
}

/** The edit's files decoded, or the API's message for what is wrong with them. */
async function readEdit(request: RecordedRequest): Promise<OpenAIReceivedEdit | string> {
  const form = request.form!;
  const imageFiles = form.files.filter((f) => f.field === 'image' || f.field === 'image[]');
  const images: ReceivedImage[] = [];
  for (const file of imageFiles) {
    const decoded = await decodeReceived(file.data);
    if (!decoded || !['png', 'jpeg', 'webp'].includes(decoded.format))
      return `Invalid image file or mode for image ${images.length + 1}, please check your image file.`;
    images.push(decoded);
  }
  if (images.length > 16) return 'Invalid value: at most 16 images may be given.';
  const maskFile = form.files.find((f) => f.field === 'mask');
  const mask = maskFile ? await decodeReceived(maskFile.data) : undefined;
  if (maskFile && (mask?.format !== 'png' || !mask.hasAlpha)) return 'Invalid mask image: it must be a PNG with an alpha channel.';
  const fields = Object.fromEntries(Object.entries(form.fields).map(([k, v]) => [k, v[0]]));
  return { fields, imageField: imageFiles[0].field, images, ...(mask && { mask }) };
}

/** The first image at the answer's size, the prompt's colour painted where the mask is transparent. */
async function drawEdit(image: ReceivedImage, mask: ReceivedImage, prompt: string, width: number, height: number): Promise<Buffer> {
  const at = async (i: ReceivedImage) =>
    (await decodeReceived(
      await sharp(i.rgba, { raw: { width: i.width, height: i.height, channels: 4 } })
        .resize(width, height, { fit: 'fill', kernel: 'nearest' })
        .png()
        .toBuffer(),
    ))!;
  const [base, m] = await Promise.all([at(image), at(mask)]);
  return paintedOver(base, prompt, (p) => 255 - m.rgba[p * 4 + 3]);
}

/** A transparent picture with the prompt's colour in its middle half. */
function cutOut(prompt: string, width: number, height: number): Promise<Buffer> {
  const { r, g, b } = fakeImageColour(prompt);
  const raw = Buffer.alloc(width * height * 4);
  for (let y = Math.floor(height / 4); y < Math.ceil((height * 3) / 4); y++)
    for (let x = Math.floor(width / 4); x < Math.ceil((width * 3) / 4); x++) raw.set([r, g, b, 255], (y * width + x) * 4);
  return sharp(raw, { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

const jsonFields = (request: RecordedRequest): Record<string, unknown> | undefined =>
  request.json && typeof request.json === 'object' ? (request.json as Record<string, unknown>) : undefined;

const formFields = (request: RecordedRequest): Record<string, unknown> | undefined =>
  request.form ? Object.fromEntries(Object.entries(request.form.fields).map(([k, v]) => [k, v[0]])) : undefined;

const mask = (header: string | undefined) => {
  const key = header?.replace(/^Bearer /, '') ?? '';
  return key.length > 8 ? `${key.slice(0, 3)}***${key.slice(-4)}` : '***';
};
