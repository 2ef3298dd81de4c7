import { Router, type Request, type Response } from 'express';
import { AppError } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { sendPrebuilt } from '../../http/send-prebuilt';
import { dashboardAssets, type DashboardAsset } from './bundle';

/**
 * The Content-Security-Policy of the app shell: everything from this origin; images also from the
 * storage's public origin when it is elsewhere (S3, a CDN). No inline script or style at all.
 */
export function dashboardCsp(deps: Pick<GatewayDeps, 'storage' | 'publicBaseUrl'>): string {
  const self = new URL(deps.publicBaseUrl).origin;
  let storageOrigin: string | null = null;
  try {
    const origin = new URL(deps.storage.publicUrl('x'), deps.publicBaseUrl).origin;
    if (origin !== self && origin !== 'null') storageOrigin = origin;
  } catch {
    storageOrigin = null;
  }
  return [
    "default-src 'self'",
    `img-src 'self' data: blob:${storageOrigin ? ` ${storageOrigin}` : ''}`,
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** The brand mark, inline: no request, no 404 for /favicon.ico. */
const FAVICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#818cf8"/><stop offset=".55" stop-color="#4f46e5"/><stop offset="1" stop-color="#0ea5e9"/></linearGradient></defs><rect width="32" height="32" rx="9" fill="url(#g)"/></svg>')}`;

/** The one HTML document of every client-side route; the assets' ETags bust caches on deploy. */
const shell = (jsHash: string, cssHash: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="referrer" content="no-referrer">
<title>PromptPix dashboard</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="/dashboard/assets/app.css?v=${cssHash}">
<script defer src="/dashboard/assets/app.js?v=${jsHash}"></script>
</head>
<body>
<div id="app"><div class="boot" role="status" aria-live="polite">Loading your dashboard…</div></div>
<noscript><p class="noscript">The PromptPix dashboard needs JavaScript.</p></noscript>
</body>
</html>
`;

/** The shell links each asset with its hash in the query: a new deployment is a new URL, cached for good. */
const sendAsset = (req: Request, res: Response, asset: DashboardAsset): void =>
  sendPrebuilt(req, res, asset, asset.contentType, req.query.v === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache');

/**
 * The dashboard app: GET /dashboard and every client-side route under it (one HTML shell, never
 * cached), and its bundled assets /dashboard/assets/app.js and app.css (src/, built by ./bundle.ts).
 * /dashboard/api/* is never answered here: an unknown API path stays a JSON 404.
 */
export function dashboardPageRoutes(deps: Pick<GatewayDeps, 'storage' | 'publicBaseUrl'>) {
  const csp = dashboardCsp(deps);
  const page = async (_req: Request, res: Response) => {
    const { js, css } = await dashboardAssets();
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.type('html').send(shell(js.hash, css.hash));
  };
  return Router()
    .get('/dashboard/assets/app.js', async (req, res) => sendAsset(req, res, (await dashboardAssets()).js))
    .get('/dashboard/assets/app.css', async (req, res) => sendAsset(req, res, (await dashboardAssets()).css))
    .get('/dashboard/assets/*splat', () => {
      throw new AppError('not_found', 'Not found');
    })
    .get('/dashboard', page)
    .get('/dashboard/*splat', (req, res, next) => (req.path.startsWith('/dashboard/api/') || req.path === '/dashboard/api' ? next() : page(req, res)));
}
