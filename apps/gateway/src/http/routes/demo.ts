import { Router } from 'express';
import type { GatewayDeps } from '../../deps';
import { escapeHtml } from '../html';

type Deps = Pick<GatewayDeps, 'demoPage' | 'publicBaseUrl'>;

export interface DemoOptions {
  /** Serve GET /demo. Off in production. */
  enabled: boolean;
}

const FALLBACK_SVG =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'%3E%3Crect width='100' height='100' fill='%23dfe3ea'/%3E%3Ctext x='50' y='54' font-family='sans-serif' font-size='11' text-anchor='middle' fill='%23667'%3Efallback%3C/text%3E%3C/svg%3E";

const STATIC_IMAGES = [
  { prompt: 'a lighthouse on a rocky coast at sunset', style: 'photorealistic' },
  { prompt: 'a fox reading a book under a tree', style: 'watercolor' },
  { prompt: 'a robot watering plants on a balcony', style: 'cartoon' },
  { prompt: 'a night market in the rain, neon signs', style: 'cinematic' },
];

const DYNAMIC_PROMPTS = [
  'a hot air balloon over green hills',
  'a teapot shaped like a snail',
  'a cabin in a snowy forest',
  'a paper boat on a puddle',
  'a cat astronaut floating in space',
  'a bowl of ramen, top view',
];

function page(base: string, key: string | null, problem: string | null): string {
  const figure = (attrs: string, caption: string) =>
    `<figure><img alt="${escapeHtml(caption)}" ${attrs}><figcaption>${escapeHtml(caption)}</figcaption></figure>`;
  const staticFigures = STATIC_IMAGES.map(({ prompt, style }) =>
    figure(
      `data-service-prompt="${escapeHtml(prompt)}" data-service-style="${style}" data-service-width="512" data-service-height="512"`,
      `${prompt} (${style})`,
    ),
  ).join('\n');
  const snippet = `<script src="${base}/service-client.js" data-key="pk_live_..."></script>\n<img data-service-prompt="a fox reading a book" data-service-style="watercolor">`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>promptpix: page script demo</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:24px;color:#1b1b1f;background:#f6f6f8}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:32px 0 8px}p{margin:4px 0 12px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:16px}
figure{margin:0;background:#fff;border:1px solid #e1e1e7;border-radius:8px;padding:8px}
figure img{display:block;width:100%;height:auto;aspect-ratio:1;border-radius:4px;object-fit:cover}
figcaption{font-size:13px;color:#555;margin-top:6px}
pre{background:#1f2330;color:#e8e8f0;padding:12px;border-radius:8px;overflow:auto;font-size:13px}
.note{background:#fff6dc;border:1px solid #ecd27c;padding:12px;border-radius:8px}
button{font:inherit;padding:6px 14px;margin-bottom:12px;cursor:pointer}
</style>
</head>
<body>
<h1>promptpix page script demo</h1>
<p>Images below carry <code>data-service-prompt</code> attributes; <code>/service-client.js</code> resolves them in batches, shows a shimmer while they generate, and reports impressions and clicks.</p>
<pre>${escapeHtml(snippet)}</pre>
${problem ? `<p class="note" id="key-note">${problem}</p>` : `<script src="/service-client.js" data-key="${escapeHtml(key ?? '')}"></script>`}
<h2>Static images</h2>
<div class="grid" id="static">
${staticFigures}
</div>
<h2>With a fallback <code>src</code></h2>
<p>The fallback stays until the generated image is ready. Instant mode picks the closest shared-library image (fill an empty library with <code>npm run --silent admin -- library seed</code>); with nothing close enough, the fallback stays.</p>
<div class="grid" id="fallback">
${figure(`src="${FALLBACK_SVG}" data-service-prompt="a red bicycle leaning on a yellow wall" data-service-width="512" data-service-height="512"`, 'a red bicycle leaning on a yellow wall')}
${figure(`src="${FALLBACK_SVG}" data-service-prompt="a lighthouse on a rocky coast at sunset" data-service-mode="instant"`, 'instant mode: a lighthouse')}
</div>
<h2>Added later</h2>
<p>One image is added two seconds after load; the button adds more.</p>
<button type="button" id="add">Add an image</button>
<div class="grid" id="dynamic"></div>
<script>
(function () {
  var prompts = ${JSON.stringify(DYNAMIC_PROMPTS).replace(/</g, '\\u003c')};
  var count = 0;
  function add() {
    var prompt = prompts[count++ % prompts.length];
    var figure = document.createElement('figure');
    var img = document.createElement('img');
    img.alt = prompt;
    img.setAttribute('data-service-prompt', prompt);
    img.setAttribute('data-service-width', '512');
    img.setAttribute('data-service-height', '512');
    var caption = document.createElement('figcaption');
    caption.textContent = prompt;
    figure.appendChild(img);
    figure.appendChild(caption);
    document.getElementById('dynamic').appendChild(figure);
  }
  document.getElementById('add').addEventListener('click', add);
  setTimeout(add, 2000);
})();
</script>
</body>
</html>
`;
}

/**
 * GET /demo: a page that uses the page script, for trying a publishable key in development
 * (`/demo?key=pk_live_...`). Not mounted in production.
 */
export const demoRoutes = (deps: Deps, options: DemoOptions = { enabled: deps.demoPage }) => {
  const router = Router();
  if (!options.enabled) return router;
  return router.get('/demo', (req, res) => {
    const key = typeof req.query.key === 'string' ? req.query.key.trim() : '';
    let problem: string | null = null;
    if (key.startsWith('sk_live_'))
      problem = 'That is a secret key. Secret keys belong on servers only: open this page with a publishable key, <code>/demo?key=pk_live_...</code>.';
    else if (!key.startsWith('pk_live_'))
      problem =
        'Open this page with a publishable key: <code>/demo?key=pk_live_...</code> (create one with <code>npm run --silent admin -- keys create &lt;handle&gt; --kind publishable --name site</code>).';
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.send(page(deps.publicBaseUrl, problem ? null : key, problem));
  });
};
