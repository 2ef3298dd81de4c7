import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

export type KeyKind = 'secret' | 'publishable';

export const KEY_PREFIX: Record<KeyKind, string> = { secret: 'sk_live_', publishable: 'pk_live_' };
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 40;

/** A new key: prefix + 40 random base62 characters (about 238 bits). Shown once, stored hashed. */
export function generateApiKey(kind: KeyKind): string {
  let body = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) body += BASE62[randomInt(BASE62.length)];
  return KEY_PREFIX[kind] + body;
}

/** The kind a key claims by its prefix, or null when it is not shaped like one of ours. */
export function keyKindOf(key: string): KeyKind | null {
  if (!/^(sk|pk)_live_[0-9A-Za-z]{20,200}$/.test(key)) return null;
  return key.startsWith('sk_') ? 'secret' : 'publishable';
}

/** Keys are long random strings, so a fast unsalted hash is enough and keeps lookups O(1). */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** The part of a key safe to show again later ("sk_live_Ab12…"). */
export const keyHint = (key: string): string => key.slice(0, 12);

export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
