/** What the worker asks of an image model. */
export interface ModelRequest {
  prompt: string;
  style?: string;
  /** The style's prompt template ("… {prompt} …"); remote models send the prompt filled into it. */
  promptTemplate?: string;
  /** 0..1, how strongly the style applies. */
  strength: number;
  seed: number;
  /** What the image should not show; providers that take one pass it on. */
  negativePrompt?: string;
  width: number;
  height: number;
  /** A character to put in the scene: its reference images (original or prepared for the scene's family). */
  character?: CharacterReferenceInput;
  /**
   * An edit: the image(s) to start from and an optional mask. `strength` then says how far the
   * result may depart from the input (0 keeps it, 1 repaints freely), not how strongly a style applies.
   */
  edit?: EditInput;
  /** `transparent` asks for an alpha background; models without `transparentBackground` ignore it. */
  background?: BackgroundMode;
  /**
   * Called as the backend reports how far it has got (ComfyUI's and A1111's progress, Replicate's
   * logs). May be called often; the caller throttles. Never throws into the adapter.
   */
  onProgress?: (progress: ModelProgress) => void;
}

/** How far one model call has got, as its backend tells. */
export interface ModelProgress {
  /** 0..1, when the backend says (sampling steps done / steps). */
  fraction?: number;
  /** A short note for people, e.g. `step 12/30` or a backend's log line. */
  message?: string;
}

export type BackgroundMode = 'auto' | 'opaque' | 'transparent';

/** The input of an edit as the worker hands it over: metadata stripped, PNG, already at the request's size. */
export interface EditInput {
  /** The first is the image edited (the mask applies to it); more are references (OpenAI's `image[]`). */
  images: Buffer[];
  /** PNG, same size as the first image: transparent (alpha 0) where the image may change, opaque where it stays (OpenAI's convention). */
  mask?: Buffer;
}

/** What edits a model takes. A model without `edits` cannot edit: the gateway refuses such a request early. */
export interface EditSupport {
  /** It takes `edit.mask` (inpainting); without, an edit with a mask is refused. */
  readonly mask: boolean;
  /** The most images one edit takes, the edited one included (OpenAI's GPT image models: 16; most backends: 1). */
  readonly maxImages: number;
}

/** A larger copy of a stored image, made by a backend's own upscaler. */
export interface UpscaleRequest {
  /** Encoded PNG. */
  image: Buffer;
  width: number;
  height: number;
  factor: 2 | 4;
  seed: number;
}

export interface CharacterReferenceInput {
  /** Encoded images; empty for a character described only by a spec sheet. */
  images: Buffer[];
  specSheet?: string;
  name: string;
}

export interface ReferencePreparation {
  character: CharacterReferenceInput;
  /** Visual family (photographic, painterly, ...) the reference is prepared for. */
  family: string;
  seed: number;
}

export interface ModelImage {
  /** Encoded image (PNG, JPEG or WebP) or anything sharp can read. */
  data: Buffer;
  width: number;
  height: number;
  /**
   * What the model drew, in words, when it says (the built-in model does: "a lighthouse on a
   * cliff, sunset palette, watercolor"); stored on the job and answered as OpenAI's `revised_prompt`.
   */
  revisedPrompt?: string;
}

export interface ImageModel {
  readonly name: string;
  generate(request: ModelRequest, signal?: AbortSignal): Promise<ModelImage>;
  /**
   * Prepares a reusable reference of a character in one visual family (first use of a family).
   * Models without it use the original references for every family.
   */
  prepareReference?(input: ReferencePreparation, signal?: AbortSignal): Promise<ModelImage>;
  /**
   * The backend's own upscaler (A1111 extras, a ComfyUI workflow, a Replicate model); without it the
   * worker resamples (`resampleUpscale` in @promptpix/models). Answers exactly width×factor by height×factor.
   */
  upscale?(request: UpscaleRequest, signal?: AbortSignal): Promise<ModelImage>;
  /** What edits it takes (`request.edit`); absent: none. An edit beyond it fails as a permanent model error. */
  readonly edits?: EditSupport;
  /** The model can draw on a transparent background (`background: 'transparent'`). */
  readonly transparentBackground?: boolean;
}

/** A model failure that may succeed on retry (timeouts, 429, 5xx). */
export class TransientModelError extends Error {
  override name = 'TransientModelError';
}
