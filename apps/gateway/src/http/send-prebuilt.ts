import type { Request, Response } from 'express';

/** A response body built once per process, with its gzip form and a strong validator. */
export interface Prebuilt {
  body: string | Buffer;
  gzip: Buffer;
  /** Strong validator of `body`; the gzip representation adds `-gz` inside the quotes. */
  hash: string;
}

/** Sends a prebuilt body: gzip when accepted, an ETag per representation, 304 when the client's copy is fresh. */
export function sendPrebuilt(req: Request, res: Response, asset: Prebuilt, contentType: string, cacheControl: string): void {
  const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('ETag', `"${asset.hash}${gzip ? '-gz' : ''}"`);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.send(gzip ? asset.gzip : asset.body);
}
