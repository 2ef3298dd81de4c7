import { isStorableInstant } from '@promptpix/contracts';

/** Position in the image list: the last image of a page, by (createdAt, id). */
export interface ImageCursor {
  createdAt: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Opaque to the browser: base64url of "<epoch ms>.<id>". */
export const encodeCursor = (c: ImageCursor): string => Buffer.from(`${c.createdAt.getTime()}.${c.id}`).toString('base64url');

/** The cursor a previous page gave, or null for anything else. */
export function decodeCursor(value: string): ImageCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) return null;
  const match = /^(\d{1,15})\.(.+)$/.exec(Buffer.from(value, 'base64url').toString('utf8'));
  if (!match || !UUID.test(match[2])) return null;
  const createdAt = new Date(Number(match[1]));
  return isStorableInstant(createdAt) ? { createdAt, id: match[2].toLowerCase() } : null;
}
