/**
 * A fake Stable Diffusion WebUI (AUTOMATIC1111 / Forge) API: POST /sdapi/v1/txt2img and
 * /sdapi/v1/img2img answering `{ images: [base64 PNG], parameters, info }`, POST
 * /sdapi/v1/extra-single-image answering `{ html_info, image }`, GET /sdapi/v1/progress while one
 * runs, optional basic auth, and errors in the WebUI's shapes (`{ detail }`, FastAPI's 422 list,
 * `{ error, detail, body, errors }`).
 *
 * img2img draws the init image (resized to width×height) with the prompt's colour painted where
 * the mask is white (the WebUI's convention; `inpainting_mask_invert: 1` swaps it), or, without a
 * mask, blended over the whole image by `denoising_strength`. Every image it receives is decoded and
 * recorded in `received`.
 */
import sharp from 'sharp';
import { decodeReceived, fakeImage, paintedOver, sendJson, startFakeProvider, type FakeBehaviour, type FakeProviderServer, type ReceivedImage } from './server';

export interface FakeA1111Options {
  /** Basic-auth credentials the server requires (`--api-auth`); unset accepts any request. */
  username?: string;
  password?: string;
}

export interface FakeA1111Behaviour extends FakeBehaviour {
  /** Sampling takes this long per step (the request's `steps`), reported by GET /sdapi/v1/progress. Default 0: answers at once. */
  stepMs?: number;
  /**
   * A misbehaving backend's 200 answers: an image of another size than asked, a PNG cut short
   * (its first `keepBytes`, default half), or any bytes at all in place of the image.
   */
  image?: { kind: 'size'; width: number; height: number } | { kind: 'truncated'; keepBytes?: number } | { kind: 'bytes'; data: Buffer };
}

/** What GET /sdapi/v1/progress answers (`skip_current_image=true`): the WebUI's shape. */
const progressBody = (step: number, steps: number, stepMs: number) => ({
  progress: steps > 0 ? step / steps : 0,
  eta_relative: steps > 0 ? ((steps - step) * stepMs) / 1000 : 0,
  state: {
    skipped: false,
    interrupted: false,
    job: steps > 0 ? 'txt2img' : '',
    job_count: steps > 0 ? 1 : 0,
    job_timestamp: '20261124000000',
    job_no: 0,
    sampling_step: step,
    sampling_steps: steps,
  },
  current_image: null,
  textinfo: null,
});

/** The WebUI's error bodies: 422 FastAPI validation list, 5xx exception shape, else `{ detail }`. */
export const a1111Error = (status: number, message?: string) => {
  if (status === 422) return { detail: [{ loc: ['body'], msg: message ?? 'field required', type: 'value_error' }] };
  if (status >= 500) return { error: 'RuntimeError', detail: '', body: '', errors: message ?? 'CUDA out of memory.' };
  return { detail: message ?? 'Bad request' };
};

/** What an img2img or extras request carried, its images decoded (the JSON's other fields in `fields`). */
export interface A1111Received {
  endpoint: 'img2img' | 'extra-single-image';
  /** img2img's `init_images`, or the extras' `image`. */
  images: ReceivedImage[];
  mask?: ReceivedImage;
  fields: Record<string, unknown>;
}

export interface FakeA1111Server extends FakeProviderServer<FakeA1111Behaviour> {
  received: A1111Received[];
}

/** The upscalers a stock WebUI lists (`GET /sdapi/v1/upscalers`). */
export const A1111_UPSCALERS = ['None', 'Lanczos', 'Nearest', 'ESRGAN_4x', 'LDSR', 'R-ESRGAN 4x+', 'R-ESRGAN 4x+ Anime6B', 'ScuNET', 'SwinIR_4x'];

/** The WebUI's `decode_base64_to_image`: a data URL or bare base64. */
const fromBase64 = (value: unknown) => (typeof value === 'string' ? Buffer.from(value.replace(/^data:[^,]*,/, ''), 'base64') : Buffer.alloc(0));

export async function startFakeA1111(options: FakeA1111Options = {}): Promise<FakeA1111Server> {
  const received: A1111Received[] = [];
  const expectedAuth = options.username ? `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}` : undefined;

  let sampling = { step: 0, steps: 0 };
  const server = await startFakeProvider<FakeA1111Behaviour>({
    defaults: {},
    // Progress polls are not scripted: failures and delays are the image calls'.
    isApi: (r) => r.path.startsWith('/sdapi/') && !r.path.startsWith('/sdapi/v1/progress'),
    errorBody: a1111Error,
    async route(request, response, context) {
      if (expectedAuth && request.headers.authorization !== expectedAuth) {
        return sendJson(response, 401, { detail: 'Incorrect username or password' }, { 'www-authenticate': 'Basic' });
      }
      const stepMs = context.behaviour().stepMs ?? 0;
      if (request.method === 'GET' && request.path.split('?')[0] === '/sdapi/v1/progress')
        return sendJson(response, 200, progressBody(sampling.step, sampling.steps, stepMs));
      if (request.method === 'POST' && request.path === '/sdapi/v1/extra-single-image') {
        const body = (request.json ?? {}) as Record<string, unknown>;
        const image = await decodeReceived(fromBase64(body.image));
        if (!image) return sendJson(response, 500, { detail: 'Invalid encoded image' });
        const { image: _image, ...fields } = body;
        received.push({ endpoint: 'extra-single-image', images: [image], fields });
        const upscaler = body.upscaler_1 ?? 'None';
        if (!A1111_UPSCALERS.includes(String(upscaler)))
          return sendJson(response, 500, { error: 'AssertionError', detail: '', body: '', errors: `could not find upscaler named ${String(upscaler)}` });
        const byScale = (body.resize_mode ?? 0) === 0;
        const factor = typeof body.upscaling_resize === 'number' ? body.upscaling_resize : 2;
        const width = byScale ? Math.round(image.width * factor) : Number(body.upscaling_resize_w ?? 512);
        const height = byScale ? Math.round(image.height * factor) : Number(body.upscaling_resize_h ?? 512);
        const png = await sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } })
          .resize(width, height, { kernel: 'nearest', fit: 'fill' })
          .png({ compressionLevel: 1 })
          .toBuffer();
        return sendJson(response, 200, { html_info: `<p>Postprocess upscale by: ${factor}, upscaler: ${String(upscaler)}</p>`, image: png.toString('base64') });
      }
      const mode = request.method === 'POST' ? /^\/sdapi\/v1\/(txt2img|img2img)$/.exec(request.path)?.[1] : undefined;
      if (!mode) return sendJson(response, 404, { detail: 'Not Found' });
      const body = request.json as Record<string, unknown> | undefined;
      if (!body || typeof body !== 'object')
        return sendJson(response, 422, { detail: [{ loc: ['body'], msg: 'value is not a valid dict', type: 'type_error.dict' }] });
      for (const field of ['width', 'height', 'steps', 'seed'] as const) {
        if (body[field] !== undefined && !Number.isInteger(body[field])) {
          return sendJson(response, 422, { detail: [{ loc: ['body', field], msg: 'value is not a valid integer', type: 'type_error.integer' }] });
        }
      }
      if (mode === 'img2img' && (!Array.isArray(body.init_images) || body.init_images.length === 0)) {
        return sendJson(response, 404, { detail: 'Init image not found' });
      }
      const prompt = typeof body.prompt === 'string' ? body.prompt : '';
      const width = typeof body.width === 'number' ? body.width : 512;
      const height = typeof body.height === 'number' ? body.height : 512;
      let edited: Buffer | undefined;
      if (mode === 'img2img') {
        const images = await Promise.all((body.init_images as unknown[]).map((i) => decodeReceived(fromBase64(i))));
        const mask = body.mask ? await decodeReceived(fromBase64(body.mask)) : undefined;
        if (images.some((i) => !i) || (body.mask && !mask)) return sendJson(response, 500, { detail: 'Invalid encoded image' });
        const { init_images: _init, mask: _mask, ...fields } = body;
        received.push({ endpoint: 'img2img', images: images as ReceivedImage[], ...(mask && { mask }), fields });
        edited = await drawImg2img(images[0]!, mask, prompt, width, height, body);
      }
      if (stepMs > 0) {
        const steps = typeof body.steps === 'number' ? body.steps : 20;
        for (sampling = { step: 0, steps }; sampling.step < steps; sampling.step++) await new Promise((resolve) => setTimeout(resolve, stepMs));
        sampling = { step: 0, steps: 0 };
      }
      const misbehave = context.behaviour().image;
      const good =
        edited && misbehave?.kind !== 'size'
          ? edited
          : await fakeImage(prompt, misbehave?.kind === 'size' ? misbehave.width : width, misbehave?.kind === 'size' ? misbehave.height : height);
      const png =
        misbehave?.kind === 'truncated'
          ? good.subarray(0, misbehave.keepBytes ?? Math.floor(good.length / 2))
          : misbehave?.kind === 'bytes'
            ? misbehave.data
            : good;
      const seed = typeof body.seed === 'number' && body.seed >= 0 ? body.seed : 1234;
      const info = {
        prompt,
        all_prompts: [prompt],
        negative_prompt: body.negative_prompt ?? '',
        seed,
        all_seeds: [seed],
        width,
        height,
        sampler_name: body.sampler_name ?? 'Euler a',
        cfg_scale: body.cfg_scale ?? 7,
        steps: body.steps ?? 20,
      };
      const parameters = mode === 'img2img' ? { ...body, init_images: null } : body;
      sendJson(response, 200, { images: [png.toString('base64')], parameters, info: JSON.stringify(info) });
    },
  });
  return Object.assign(server, { received });
}

/** img2img's picture: the init image at width×height, the prompt's colour painted through the mask (white repaints) or, without one, by denoising strength. */
async function drawImg2img(init: ReceivedImage, mask: ReceivedImage | undefined, prompt: string, width: number, height: number, body: Record<string, unknown>) {
  const at = async (image: ReceivedImage) =>
    decodeReceived(
      await sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } })
        .resize(width, height, { fit: 'fill' })
        .png()
        .toBuffer(),
    ) as Promise<ReceivedImage>;
  const base = await at(init);
  if (!mask) {
    const strength = typeof body.denoising_strength === 'number' ? body.denoising_strength : 0.75;
    return paintedOver(base, prompt, () => 255 * strength);
  }
  const m = await at(mask);
  const invert = body.inpainting_mask_invert === 1;
  // The WebUI reads the mask as greyscale (PIL's convert('L')).
  const luma = (p: number) => Math.round(0.299 * m.rgba[p * 4] + 0.587 * m.rgba[p * 4 + 1] + 0.114 * m.rgba[p * 4 + 2]);
  return paintedOver(base, prompt, (p) => (invert ? 255 - luma(p) : luma(p)));
}
