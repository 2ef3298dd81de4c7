/**
 * A fake Stable Diffusion WebUI (AUTOMATIC1111 / Forge) API: POST /sdapi/v1/txt2img and
 * /sdapi/v1/img2img answering `{ images: [base64 PNG], parameters, info }`, GET /sdapi/v1/progress
 * while one runs, optional basic auth, and errors in the WebUI's shapes (`{ detail }`, FastAPI's
 * 422 list, `{ error, detail, body, errors }`).
 */
import { fakeImage, sendJson, startFakeProvider, type FakeBehaviour, type FakeProviderServer } from './server';

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

export function startFakeA1111(options: FakeA1111Options = {}): Promise<FakeProviderServer<FakeA1111Behaviour>> {
  const expectedAuth = options.username ? `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}` : undefined;

  let sampling = { step: 0, steps: 0 };
  return startFakeProvider<FakeA1111Behaviour>({
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
      if (stepMs > 0) {
        const steps = typeof body.steps === 'number' ? body.steps : 20;
        for (sampling = { step: 0, steps }; sampling.step < steps; sampling.step++) await new Promise((resolve) => setTimeout(resolve, stepMs));
        sampling = { step: 0, steps: 0 };
      }
      const misbehave = context.behaviour().image;
      const good = await fakeImage(prompt, misbehave?.kind === 'size' ? misbehave.width : width, misbehave?.kind === 'size' ? misbehave.height : height);
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
}
