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

/**
 * Segments of characters encodeURIComponent keeps, none starting with a dot (so none is "." or
 * ".."): such a key, as every key the service writes (`images/<sha256>.webp`), is valid and is
 * its own URL path. An embed batch builds 50 URLs; this spares each a split, a check and a join.
 */
const PLAIN_KEY = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;

/** The URL path of a valid key; throws InvalidStorageKeyError for an invalid one. */
export function urlPathOfKey(key: string): string {
  if (key.length <= 1024 && PLAIN_KEY.test(key)) return key;
  assertStorageKey(key);
  return keyToUrlPath(key);
}

export const trimTrailingSlashes = (url: string) => url.replace(/\/+$/, '');
