import { dirname, join } from 'node:path';
import { Router } from 'express';
import { AppError } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { buildOpenApiDocument, type OpenApiDocument } from '../../openapi/document';
import { packageVersion } from '../../openapi/version';

/** Swagger UI's own files, served from node_modules: the page loads nothing from other hosts. */
const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// Relative URLs keep the page working behind a path prefix.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'api/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PromptPix API reference</title>
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<style>body{margin:0;background:#fafafa}header{padding:16px 20px;font:600 18px/1.3 system-ui,sans-serif;background:#1f2933;color:#fff}header a{color:#9ad}main{max-width:1460px;margin:0 auto}</style>
</head>
<body>
<header>PromptPix API reference · <a href="api/openapi.json">openapi.json</a></header>
<main id="reference"></main>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/init.js"></script>
</body>
</html>
`;

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document (built once per process from the zod schemas).
 * GET /docs: the reference page, Swagger UI bundled from npm (/docs/ redirects there). Its Content-Security-Policy allows
 * only this origin (and the public base URL, for "Try it out"), so nothing reaches a CDN.
 */
export function docsRoutes(deps: Pick<GatewayDeps, 'publicBaseUrl'>) {
  let document: OpenApiDocument | undefined;
  const assetsDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const apiOrigin = new URL(deps.publicBaseUrl).origin;
  const csp = [
    "default-src 'self'",
    "img-src 'self' data:",
    "style-src 'self' 'unsafe-inline'",
    "script-src 'self'",
    `connect-src 'self' ${apiOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

  return Router()
    .get('/api/openapi.json', (_req, res) => {
      document ??= buildOpenApiDocument({ serverUrl: deps.publicBaseUrl, version: packageVersion() });
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.json(document);
    })
    .get('/docs', (req, res) => {
      // Express answers /docs/ here too, where the page's relative URLs would resolve under /docs/docs/.
      if (req.path.endsWith('/')) return void res.redirect(301, `../docs${new URL(req.originalUrl, 'http://gateway').search}`);
      res.setHeader('Content-Security-Policy', csp);
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.type('html').send(PAGE);
    })
    .get('/docs/assets/:file', (req, res) => {
      const file = req.params.file;
      res.setHeader('Cache-Control', 'public, max-age=3600');
      if (file === 'init.js') return void res.type('text/javascript; charset=utf-8').send(INIT_SCRIPT);
      const type = SWAGGER_ASSETS[file];
      if (!type) throw new AppError('not_found', 'Not found');
      res.setHeader('Content-Type', type);
      res.sendFile(join(assetsDir, file));
    });
}
