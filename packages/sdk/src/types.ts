/**
 * Public types of the SDK. Wire shapes come from @promptpix/contracts, the package the gateway
 * validates with and the page script shares, through type-only imports: a bundle of the SDK
 * never contains zod or the schemas.
 */
import type { AgeBucket, GenerateBodyInput, ImageFormat, JobProgressEvent, JobView, Quota, UpscaleFactor } from '@promptpix/contracts';

export type {
  AgeBucket,
  AnalyticsAccepted,
  AnalyticsEventInput,
  Background,
  Character,
  EmbedElementInput,
  EmbedResult,
  Health,
  ImageFormat,
  InstantResult,
  JobStatus,
  JobView,
  PinResult,
  PublicStyle,
  RejectResult,
  Style,
  Upload,
  UpscaleFactor,
} from '@promptpix/contracts';

/** Body of a generation (and of an instant match); `mode` is chosen by the method called. */
export type GenerateInput = Omit<GenerateBodyInput, 'mode'>;

/** Image bytes the SDK uploads for you: a Blob (a File in a browser), a Buffer or another Uint8Array, an ArrayBuffer. */
export type ImageBytes = Blob | ArrayBuffer | Uint8Array;

/** An image an edit starts from: an upload's id, one of your images' ids, or bytes (uploaded first). */
export type ImageSource = string | ImageBytes;

/**
 * Body of an edit: a generation with `image` (one, or up to four: the image edited first, then
 * references) and an optional `mask` (transparent where the image may change; an upload's id, or
 * bytes). `strength` then says how far the result may depart from the image: 0 keeps it, 1
 * repaints freely.
 */
export type EditInput = Omit<GenerateInput, 'image' | 'mask'> & {
  image: ImageSource | ImageSource[];
  mask?: ImageSource;
};

/** Options of `upscale`: how many times wider and taller (2 by default). */
export interface UpscaleInput {
  factor?: UpscaleFactor;
}

/** The monthly generation quota as the X-Quota-* headers report it (`resetAt`: ISO 8601, the next reset). */
export type QuotaInfo = Quota;

export interface GenerateResult {
  jobId: string;
  status: 'queued';
  /** From the X-Quota-* headers; null only when a server sent none (the spec says every 202 carries them). */
  quota: QuotaInfo | null;
}

/** One state of a job from its event stream: the job as `job()` shows it, plus `position` (jobs waiting ahead of it; 0 = next) while queued. */
export type JobProgress = JobProgressEvent;

/** A `progress` event of the job's stream: how far the backend has got (`fraction` 0..1 when it says). */
export interface BackendProgress {
  jobId: string;
  fraction?: number;
  message?: string;
}

/** A job that finished with an image: imageUrl, imageId and completedAt are always set. */
export type CompletedJob = JobView & { status: 'completed'; imageUrl: string; imageId: string; completedAt: string };

/** Query of GET /api/v1/render. */
export interface RenderQuery {
  prompt: string;
  style?: string;
  character?: string;
  width?: number;
  height?: number;
  format?: ImageFormat;
  age?: AgeBucket;
  /** Extension: the same seed, prompt and settings give the same image. */
  seed?: number;
  /** Extension: what the image should not show. */
  negativePrompt?: string;
}
