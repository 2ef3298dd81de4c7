import type { Response } from 'express';

/**
 * 302 to an address we built ourselves (storage public URLs). Express's res.redirect runs content
 * negotiation for its body on every call; on the hot redirect paths a fixed plain-text body is
 * enough, and it is the same text Express sends to clients that accept text/plain.
 */
export function redirectFound(res: Response, url: string): void {
  const body = `Found. Redirecting to ${url}`;
  res.statusCode = 302;
  res.setHeader('Location', url);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body); // node:http leaves the body out of a HEAD response itself
}
