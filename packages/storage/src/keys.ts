/**
 * Object keys are relative, slash-separated paths such as `images/<sha256>.webp`. The same rule
 * holds for every adapter, so a key that works on local disk works on S3 and the other way round.
 */
export class InvalidStorageKeyError extends Error {
  override name = 'InvalidStorageKeyError';
}

/** Why a key is refused, or null when it is acceptable. */
export function storageKeyProblem(key: unknown): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'must be a non-empty string';
  if (key.length > 1024) return 'must be at most 1024 characters';
  if (key.includes('\0')) return 'must not contain NUL';
  if (key.includes('\\')) return 'must not contain backslashes';
  if (key.startsWith('/')) return 'must be relative';
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return 'must not contain empty, "." or ".." segments';
  }
  return null;
}

export function assertStorageKey(key: string): void {
  const problem = storageKeyProblem(key);
  if (problem) throw new InvalidStorageKeyError(`Invalid storage key ${JSON.stringify(key)}: ${problem}`);
}

/** The key as a URL path: each segment percent-encoded, slashes kept. */
export const keyToUrlPath = (key: string) => key.split('/').map(encodeURIComponent).join('/');

export const trimTrailingSlashes = (url: string) => url.replace(/\/+$/, '');
