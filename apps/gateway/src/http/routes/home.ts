import { Router } from 'express';
import type { GatewayDeps } from '../../deps';
import { escapeHtml } from '../html';

type Deps = Pick<GatewayDeps, 'publicBaseUrl'>;

/** Where a newcomer goes from the service's root, by name. */
export const homeLinksOf = (base: string) => ({
  dashboard: new URL('/dashboard', base).href,
  docs: new URL('/docs', base).href,
  openapi: new URL('/api/openapi.json', base).href,
  health: new URL('/api/health', base).href,
  pageScript: new URL('/service-client.js', base).href,
});

const LABELS: Record<keyof ReturnType<typeof homeLinksOf>, string> = {
  dashboard: 'Dashboard: sign in, try prompts in the playground, manage keys',
  docs: 'API reference',
  openapi: 'OpenAPI document',
  health: 'Health check',
  pageScript: 'Page script for <img data-service-prompt>',
};

/**
 * GET /: what this service is and where to go, instead of a 404. A browser gets a small page of
 * links; any other client the same links as JSON.
 */
export const homeRoutes = (deps: Deps) => {
  const links = homeLinksOf(deps.publicBaseUrl);
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>promptpix</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}</style></head>
<body><h1>promptpix</h1><p>An image generation service: send a prompt, get an image at a stable URL.</p><ul>
${Object.entries(links)
  .map(([name, href]) => `<li><a href="${escapeHtml(href)}">${escapeHtml(LABELS[name as keyof typeof LABELS])}</a></li>`)
  .join('\n')}
</ul></body></html>`;
  return Router().get('/', (req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') {
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
      res.type('html').send(page);
    } else res.json({ service: 'promptpix', ...links });
  });
};
