import { Router } from 'express';
import { serviceClientBundle } from '@promptpix/embed-client';
import { sendPrebuilt } from '../send-prebuilt';

/**
 * GET /service-client.js: the page script (packages/embed-client), built by `npm run build` and
 * read when the gateway starts (a missing build stops it there). Served gzipped to clients that
 * accept it, with a strong ETag per representation and five minutes of caching, so a new
 * deployment reaches pages within five minutes.
 */
export const clientScriptRoutes = () => {
  const bundle = serviceClientBundle();
  return Router().get('/service-client.js', (req, res) => {
    // Any site may load it, also pages that isolate themselves (COEP) or load it with crossorigin/SRI.
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Access-Control-Allow-Origin', '*');
    sendPrebuilt(req, res, { body: bundle.code, gzip: bundle.gzip, hash: bundle.hash }, 'text/javascript; charset=utf-8', 'public, max-age=300');
  });
};
