import { isStorableInstant } from './instant';

/** Position in the dashboard's image list: the last image of a page, by (createdAt, id). */
export interface ImageCursor {
  createdAt: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// base64url without Buffer, so this module runs wherever the contract does. Decoding is as lenient
// as Node's: a lone last character carries no whole byte and is dropped, leftover bits are ignored.
const toBase64url = (s: string): string =>
  btoa(String.fromCharCode(...new TextEncoder().encode(s)))
    .replace(/=+$/, '')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
const fromBase64url = (s: string): string =>
  new TextDecoder().decode(Uint8Array.from(atob((s.length % 4 === 1 ? s.slice(0, -1) : s).replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)));

/** Opaque to the browser: base64url of "<epoch ms>.<id>". */
export const encodeCursor = (c: ImageCursor): string => toBase64url(`${c.createdAt.getTime()}.${c.id}`);

/** The cursor a previous page gave, or null for anything else. */
export function decodeCursor(value: string): ImageCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) return null;
  const match = /^(\d{1,15})\.(.+)$/.exec(fromBase64url(value));
  if (!match || !UUID.test(match[2])) return null;
  const createdAt = new Date(Number(match[1]));
  return isStorableInstant(createdAt) ? { createdAt, id: match[2].toLowerCase() } : null;
}
