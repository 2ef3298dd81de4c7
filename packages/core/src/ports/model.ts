/** What the worker asks of an image model. */
export interface ModelRequest {
  prompt: string;
  style?: string;
  /** 0..1, how strongly the style applies. */
  strength: number;
  seed: number;
  width: number;
  height: number;
}

export interface ModelImage {
  /** Encoded image (PNG, JPEG or WebP) or anything sharp can read. */
  data: Buffer;
  width: number;
  height: number;
}

export interface ImageModel {
  readonly name: string;
  generate(request: ModelRequest, signal?: AbortSignal): Promise<ModelImage>;
}

/** A model failure that may succeed on retry (timeouts, 429, 5xx). */
export class TransientModelError extends Error {
  override name = 'TransientModelError';
}
