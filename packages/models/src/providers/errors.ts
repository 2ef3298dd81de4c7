/**
 * A model failure that retrying cannot fix: the provider rejected the request itself
 * (HTTP 4xx other than 408/429: bad key, unknown model, invalid size, content policy) or a
 * prediction failed. The worker should end the job at once instead of retrying it.
 */
export class PermanentModelError extends Error {
  override name = 'PermanentModelError';
  /** The provider's HTTP status, when the failure was an HTTP answer. */
  readonly status?: number;

  constructor(message: string, options?: { status?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = options?.status;
  }
}
