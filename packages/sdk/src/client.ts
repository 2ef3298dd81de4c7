import { InvalidRequestError, PromptPixError } from './errors';
import { describeInvalid } from './error-from-response';
import { quotaFromHeaders } from './headers';
import { followJobEvents, type JobEventsOptions } from './job-events';
import { createTransport, type Transport } from './transport';
import { buildRenderUrl, normalizeBaseUrl, segment } from './urls';
import { waitForCompletion, type WaitOptions } from './wait-for-image';
import type {
  AnalyticsAccepted,
  AnalyticsEventInput,
  Character,
  CompletedJob,
  EditInput,
  EmbedElementInput,
  EmbedResult,
  GenerateInput,
  GenerateResult,
  Health,
  ImageBytes,
  ImageSource,
  InstantResult,
  JobProgress,
  JobView,
  PinResult,
  PublicStyle,
  RejectResult,
  RenderQuery,
  Style,
  Upload,
  UpscaleInput,
} from './types';

export interface PromptPixOptions {
  /** Address of the service, e.g. `https://images.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** A secret key (`sk_live_…`, servers only) or a publishable key (`pk_live_…`, browsers). */
  apiKey: string;
  /** A fetch implementation; defaults to the global one. */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** Aborting rejects the call with the signal's reason. */
  signal?: AbortSignal;
}

export interface GenerateOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key`: retrying with the same key and body returns the first answer (same
   * jobId) for 24 hours instead of starting a second generation. A UUID per logical request is typical.
   */
  idempotencyKey?: string;
  /**
   * Sent as `Cancel-After` (an extension): whole seconds, 1 to 3600. A job this call starts that
   * has not finished by then is cancelled (failed, "cancelled", quota refunded).
   */
  cancelAfter?: number;
}

export interface UploadOptions extends RequestOptions {
  /** The file name sent in the multipart part (the service reads the format from the bytes, not the name). */
  filename?: string;
}

/** Bytes as a Blob for FormData; a Blob (a File) is sent as it is. */
function asBlob(bytes: ImageBytes): Blob {
  if (bytes instanceof Blob) return bytes;
  // A view of its own bytes: a Buffer may be a slice of a larger pooled ArrayBuffer.
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return new Blob([view as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' });
}

/** An InvalidRequestError about an upload's `image` field, told about the edit field the bytes were given for. */
function renamedField(error: unknown, field: string): unknown {
  if (!(error instanceof InvalidRequestError) || field === 'image' || !('image' in error.fieldErrors)) return error;
  const { image, ...rest } = error.fieldErrors;
  const fieldErrors = { ...rest, [field]: image };
  const message = typeof error.body?.error === 'string' ? error.body.error : `HTTP ${error.status}`;
  return new InvalidRequestError(describeInvalid(message, fieldErrors, error.formErrors), {
    status: error.status,
    body: error.body,
    fieldErrors,
    formErrors: error.formErrors,
    cause: error,
  });
}

function generateHeaders(options: GenerateOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
  if (options.cancelAfter !== undefined) headers['Cancel-After'] = String(options.cancelAfter);
  return headers;
}

/**
 * Client of the promptpix API. Every method but `publicStyles` and `health` sends the key as
 * `Authorization: Bearer …`; every 4xx/5xx is thrown as a subclass of PromptPixError.
 */
export class PromptPix {
  readonly baseUrl: string;
  // Private fields keep the key out of console.log and JSON.stringify of the client.
  readonly #apiKey: string;
  readonly #transport: Transport;

  constructor(options: PromptPixOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.#apiKey = options.apiKey;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('No fetch implementation: pass one as options.fetch');
    // Called as a plain function: window.fetch throws "Illegal invocation" when called as a method of another object.
    this.#transport = createTransport({ baseUrl: this.baseUrl, apiKey: options.apiKey, fetch: (input, init) => fetchImpl(input, init) });
  }

  /** Starts a generation (secret key). Poll the job with `waitForImage`; `quota` comes from the X-Quota-* headers. */
  async generate(body: GenerateInput, options: GenerateOptions = {}): Promise<GenerateResult> {
    const { data, headers } = await this.#transport.json<{ jobId: string; status: 'queued' }>({
      method: 'POST',
      path: '/api/v1/generate',
      body: { ...body, mode: 'generate' },
      signal: options.signal,
      headers: generateHeaders(options),
    });
    return { jobId: data.jobId, status: data.status, quota: quotaFromHeaders(headers) };
  }

  /**
   * Uploads an image to edit from (secret key): a PNG, JPEG or WebP file of at most 25 MiB and
   * 4096×4096 pixels, sent as multipart/form-data. The service stores it as PNG without metadata;
   * pass its `id` as `image` or `mask` to `edit` (or `generate`). The same bytes again answer the
   * same upload, its expiry moved on. Bad files: InvalidRequestError naming `image`; past the
   * account's upload budget: ConflictError (`code: 'upload_budget_exceeded'`).
   */
  async upload(file: ImageBytes, options: UploadOptions = {}): Promise<Upload> {
    const form = new FormData();
    form.append('image', asBlob(file), options.filename ?? (typeof File !== 'undefined' && file instanceof File ? file.name : 'image'));
    const { data } = await this.#transport.json<Upload>({ method: 'POST', path: '/api/v1/uploads', form, signal: options.signal });
    return data;
  }

  /**
   * Starts an edit (secret key): a generation from `image` (an upload's id, one of your images'
   * ids, or bytes; an array of up to four puts references after the first) within `mask`
   * (transparent where the image may change). Bytes are uploaded first (`upload`), one after
   * another; an upload's InvalidRequestError names the field they were given for (`image`, `image[1]`,
   * `mask`). Then it is `generate` with the ids: the same answer, poll it with `waitForImage`.
   */
  async edit(body: EditInput, options: GenerateOptions = {}): Promise<GenerateResult> {
    const { image, mask, ...rest } = body;
    const images = Array.isArray(image) ? image : [image];
    const idOf = async (source: ImageSource, field: string): Promise<string> => {
      if (typeof source === 'string') return source;
      try {
        return (await this.upload(source, { signal: options.signal })).id;
      } catch (error) {
        throw renamedField(error, field);
      }
    };
    // One after another: the service lets an account send only a few images at once (UPLOADS_IN_FLIGHT_PER_ACCOUNT).
    const ids: string[] = [];
    for (const [i, source] of images.entries()) ids.push(await idOf(source, images.length === 1 ? 'image' : `image[${i}]`));
    const maskId = mask === undefined ? undefined : await idOf(mask, 'mask');
    return this.generate({ ...rest, image: Array.isArray(image) ? ids : ids[0], ...(maskId === undefined ? {} : { mask: maskId }) }, options);
  }

  /**
   * Starts an upscale of one of your images (secret key): a job whose image is a copy `factor`
   * (2 or 4, default 2) times wider and taller, at most 8192 pixels on a side. One quota unit;
   * the same upscale again is the stored copy, free. Poll it with `waitForImage`. Unknown or not
   * yours: NotFoundError.
   */
  async upscale(imageId: string, input: UpscaleInput = {}, options: RequestOptions = {}): Promise<GenerateResult> {
    const { data, headers } = await this.#transport.json<{ jobId: string; status: 'queued' }>({
      method: 'POST',
      path: `/api/v1/image/${segment(imageId)}/upscale`,
      body: input.factor === undefined ? {} : { factor: input.factor },
      signal: options.signal,
    });
    return { jobId: data.jobId, status: data.status, quota: quotaFromHeaders(headers) };
  }

  /** The closest shared-library image at once, free of quota (secret key). Nothing close enough: NotFoundError. */
  async instant(body: GenerateInput, options: RequestOptions = {}): Promise<InstantResult> {
    const { data } = await this.#transport.json<InstantResult>({
      method: 'POST',
      path: '/api/v1/generate',
      body: { ...body, mode: 'instant' },
      signal: options.signal,
    });
    return data;
  }

  /** The job as it stands (either key). Unknown, expired (after an hour) or another account's: NotFoundError. */
  async job(jobId: string, options: RequestOptions = {}): Promise<JobView> {
    const { data } = await this.#transport.json<JobView>({ method: 'GET', path: `/api/v1/job/${segment(jobId)}`, signal: options.signal });
    return data;
  }

  /**
   * Cancels a queued or running job (secret key; an extension): it reads `failed` with
   * `error: "cancelled"` and its quota unit comes back. A job that already finished: ConflictError.
   */
  async cancel(jobId: string, options: RequestOptions = {}): Promise<JobView> {
    const { data } = await this.#transport.json<JobView>({ method: 'DELETE', path: `/api/v1/job/${segment(jobId)}`, signal: options.signal });
    return data;
  }

  /**
   * The job's states as they change, from its Server-Sent Events stream (either key): the current
   * state at once, then each change, ending after `completed` or `failed`. Unknown, expired or
   * another account's: NotFoundError on the first `next()`. Break out of the loop or abort
   * `signal` to close the stream.
   *
   * ```ts
   * for await (const job of pp.jobEvents(jobId)) console.log(job.status, job.position);
   * ```
   */
  jobEvents(jobId: string, options: JobEventsOptions = {}): AsyncGenerator<JobProgress, void, undefined> {
    const path = `/api/v1/job/${segment(jobId)}/events`;
    return followJobEvents(
      (lastEventId, signal) =>
        this.#transport.send({
          method: 'GET',
          path,
          signal,
          headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }) },
        }),
      options,
    );
  }

  /**
   * Polls the job (first after 1 s, then up to every 2 s) until it completes and resolves with
   * it. A failed job throws GenerationFailedError, running past `timeoutMs` (default 3 minutes)
   * TimeoutError, aborting `signal` its reason. Network errors, 5xx and 429 are retried with backoff.
   */
  waitForImage(jobId: string, options: WaitOptions = {}): Promise<CompletedJob> {
    return waitForCompletion((id, signal) => this.job(id, { signal }), jobId, options);
  }

  /** `generate` then `waitForImage`: resolves with the completed job. */
  async generateAndWait(body: GenerateInput, options: WaitOptions = {}): Promise<CompletedJob> {
    const { jobId } = await this.generate(body, { signal: options.signal });
    return this.waitForImage(jobId, options);
  }

  /**
   * The URL of GET /api/v1/render for a prompt: it redirects (302) to the image, generating it
   * first when needed.
   *
   * WARNING: the URL carries the client's key in its `key` query parameter, and render needs a
   * secret key. Use it only where the URL stays private (server-side fetches, e-mails to
   * yourself); never put it in a public page, where anyone could read the key.
   */
  renderUrl(query: RenderQuery): string {
    return buildRenderUrl(this.baseUrl, this.#apiKey, query);
  }

  /**
   * The stable address of an owned image (secret key): GET /api/v1/image/:id answers with a
   * redirect, and this returns its Location. Passing the `jobId` that made the image lets the
   * service answer from the job store.
   *
   * For servers: browsers hide manual redirects (an opaque response), so there this throws;
   * in a browser use the `imageUrl` of the job instead. Unknown or not owned: NotFoundError.
   */
  async image(imageId: string, options: RequestOptions & { jobId?: string } = {}): Promise<string> {
    const path = `/api/v1/image/${segment(imageId)}`;
    const response = await this.#transport.send({ method: 'GET', path, query: { jobId: options.jobId }, redirect: 'manual', signal: options.signal });
    const location = response.headers.get('location');
    await response.body?.cancel().catch(() => undefined);
    if (response.type === 'opaqueredirect') {
      throw new PromptPixError("This runtime hides redirects (a browser): image() is for servers; use the job's imageUrl instead", { status: 0, body: null });
    }
    if (!location) throw new PromptPixError(`GET ${path}: expected a redirect, got HTTP ${response.status}`, { status: response.status, body: null });
    return new URL(location, this.baseUrl + path).href;
  }

  /** Pins an owned image (secret key): its permalink serves it from now on; clears a rejection. */
  async pin(imageId: string, options: RequestOptions = {}): Promise<PinResult> {
    return (await this.#transport.json<PinResult>({ method: 'PATCH', path: `/api/v1/image/${segment(imageId)}/pin`, signal: options.signal })).data;
  }

  /** Unpins an owned image (secret key): its permalink goes back to rotating. */
  async unpin(imageId: string, options: RequestOptions = {}): Promise<PinResult> {
    return (await this.#transport.json<PinResult>({ method: 'DELETE', path: `/api/v1/image/${segment(imageId)}/pin`, signal: options.signal })).data;
  }

  /** Rejects an owned image (secret key): unpinned, unhooked from its permalink, the next request for its prompt makes a fresh one. */
  async reject(imageId: string, options: RequestOptions = {}): Promise<RejectResult> {
    return (await this.#transport.json<RejectResult>({ method: 'PATCH', path: `/api/v1/image/${segment(imageId)}/reject`, signal: options.signal })).data;
  }

  /** Styles the account may use (either key): its own first, then the presets its plan allows. */
  async styles(options: RequestOptions = {}): Promise<Style[]> {
    return (await this.#transport.json<{ styles: Style[] }>({ method: 'GET', path: '/api/v1/styles', signal: options.signal })).data.styles;
  }

  /** Every preset with category, tier and preview; sends no key. */
  async publicStyles(options: RequestOptions = {}): Promise<PublicStyle[]> {
    return (
      await this.#transport.json<{ styles: PublicStyle[] }>({ method: 'GET', path: '/api/v1/styles/public', authenticated: false, signal: options.signal })
    ).data.styles;
  }

  /** The account's characters (secret key); reference images are never returned. */
  async characters(options: RequestOptions = {}): Promise<Character[]> {
    return (await this.#transport.json<{ characters: Character[] }>({ method: 'GET', path: '/api/v1/characters', signal: options.signal })).data.characters;
  }

  /** Resolves 1 to 50 elements in one call (either key): one result per element, in order; one failing element never fails the batch. */
  async embedResolve(elements: EmbedElementInput[], options: RequestOptions = {}): Promise<EmbedResult[]> {
    return (
      await this.#transport.json<{ results: EmbedResult[] }>({ method: 'POST', path: '/api/v1/embed/resolve', body: { elements }, signal: options.signal })
    ).data.results;
  }

  /** Liveness of the service (GET /api/health); sends no key. */
  async health(options: RequestOptions = {}): Promise<Health> {
    return (await this.#transport.json<Health>({ method: 'GET', path: '/api/health', authenticated: false, signal: options.signal })).data;
  }

  /** Records 1 to 100 analytics events (either key). `accepted` means received, not necessarily stored. */
  async analytics(events: AnalyticsEventInput[], options: RequestOptions = {}): Promise<AnalyticsAccepted> {
    return (await this.#transport.json<AnalyticsAccepted>({ method: 'POST', path: '/api/v1/analytics/events', body: { events }, signal: options.signal })).data;
  }
}
