import { Router, type Request, type Response } from 'express';
import { AppError } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { sendPrebuilt } from '../../http/send-prebuilt';
import { dashboardAssetsFrom, DEFAULT_DASHBOARD_DIR, type DashboardAsset } from './assets';

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

/** The one HTML document of every client-side route; it links the assets' hashed files, so a deployment busts caches. */
const shell = (jsFile: string, cssFile: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="referrer" content="no-referrer">
<title>PromptPix dashboard</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="/dashboard/assets/${cssFile}">
<script defer src="/dashboard/assets/${jsFile}"></script>
</head>
<body>
<div id="app"><div class="boot" role="status" aria-live="polite">Loading your dashboard…</div></div>
<noscript><p class="noscript">The PromptPix dashboard needs JavaScript.</p></noscript>
</body>
</html>
`;

/** A hashed file never changes: cached for good. The entry's plain name (app.js) revalidates. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const sendAsset = (req: Request, res: Response, asset: DashboardAsset, cacheControl: string): void =>
  sendPrebuilt(req, res, asset, asset.contentType, cacheControl);

/**
 * The dashboard app (apps/dashboard, built to dist/dashboard/ by `npm run build`): GET /dashboard
 * and every client-side route under it (one HTML shell, never cached), and its built files
 * /dashboard/assets/app.<hash>.js and .css (./assets.ts reads them at start: missing files stop
 * the gateway there). /dashboard/api/* is never answered here: an unknown API path stays a JSON 404.
 */
export function dashboardPageRoutes(deps: Pick<GatewayDeps, 'storage' | 'publicBaseUrl'>, assetsDir = DEFAULT_DASHBOARD_DIR) {
  const csp = dashboardCsp(deps);
  const assets = dashboardAssetsFrom(assetsDir);
  const page = (_req: Request, res: Response) => {
    const { js, css } = assets();
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.type('html').send(shell(js.file, css.file));
  };
  return Router()
    .get('/dashboard/assets/app.js', (req, res) => sendAsset(req, res, assets().js, 'no-cache'))
    .get('/dashboard/assets/app.css', (req, res) => sendAsset(req, res, assets().css, 'no-cache'))
    .get('/dashboard/assets/:file', (req, res) => {
      const asset = assets().byFile.get(req.params.file);
      if (!asset) throw new AppError('not_found', 'Not found');
      sendAsset(req, res, asset, IMMUTABLE);
    })
    .get('/dashboard/assets/*splat', () => {
      throw new AppError('not_found', 'Not found');
    })
    .get('/dashboard', page)
    .get('/dashboard/*splat', (req, res, next) => (req.path.startsWith('/dashboard/api/') || req.path === '/dashboard/api' ? next() : page(req, res)));
}
