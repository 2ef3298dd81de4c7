/**
 * The page script in a real browser: Debian's Chromium driven by playwright-core, against the
 * whole service (embedded shape) and test pages served from another loopback port, so every call
 * is cross-origin as on a customer's site. A missing Chromium fails the run; it never skips.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page, type Request } from 'playwright-core';
import { signPrompt } from '@promptpix/sdk';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { chromiumOptions, requireChromium, TEST_ARTIFACTS } from '@promptpix/testing';

/** Every generation takes this long, so "mid-way" is observable. */
const MODEL_LATENCY_MS = 1500;
const FALLBACK =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='64' height='64'%3E%3Crect width='64' height='64' fill='%23ccc'/%3E%3C/svg%3E";

jest.setTimeout(60_000);

let service: TestService;
let account: TestAccount;
let context: BrowserContext;
let profile: string;
let pageServer: Server;
let pageBase: string;
const pages = new Map<string, string>();

/** A test page on the page server: the script tag goes at the end of the body unless `head`. */
function servePage(path: string, body: string, options: { head?: boolean; key?: string } = {}): string {
  const script = `<script src="${service.baseUrl}/service-client.js" data-key="${options.key ?? account.publishableKey}"></script>`;
  pages.set(
    path,
    `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><style>body{margin:0}img{width:256px;height:256px;display:block}</style>` +
      `<script>window.__globalsBefore = Object.keys(window)</script>${options.head ? script : ''}</head><body>${body}${options.head ? '' : script}</body></html>`,
  );
  return pageBase + path;
}

interface Watched {
  page: Page;
  errors: string[];
  resolveCalls: Array<{ at: number; elements: Array<Record<string, unknown>> }>;
}

/** A new tab that records page errors, console errors and resolve calls. */
async function openPage(): Promise<Watched> {
  const page = await context.newPage();
  const watched: Watched = { page, errors: [], resolveCalls: [] };
  page.on('pageerror', (error) => watched.errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) watched.errors.push(`response: ${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && request.url() === `${service.baseUrl}/api/v1/embed/resolve`) {
      watched.resolveCalls.push({ at: Date.now(), elements: JSON.parse(request.postData() ?? '{}').elements });
    }
  });
  return watched;
}

/** State, src and image size of an element, read in the page. */
const inspect = (page: Page, selector: string) =>
  page.$eval(selector, (img: HTMLImageElement) => ({
    state: img.getAttribute('data-service-state'),
    src: img.getAttribute('src'),
    imageId: img.getAttribute('data-service-image-id'),
    naturalWidth: img.complete ? img.naturalWidth : 0,
    animation: getComputedStyle(img).animationName,
  }));

const waitReady = (page: Page, selector: string, timeout = 20_000) =>
  page.waitForFunction(
    (s) => Array.from(document.querySelectorAll(s)).every((img) => img.getAttribute('data-service-state') === 'ready' && (img as HTMLImageElement).complete),
    selector,
    { timeout },
  );

async function generate(prompt: string): Promise<{ imageId: string; imageUrl: string }> {
  const response = await fetch(`${service.baseUrl}/api/v1/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, width: 256, height: 256 }),
  });
  const { jobId } = await response.json();
  return service.waitForJob(jobId, account.secretKey);
}

beforeAll(async () => {
  // Checked first and loudly: the browser tests fail without Chromium, they never skip.
  requireChromium();
  profile = mkdtempSync(join(tmpdir(), 'promptpix-chromium-'));
  pageServer = createServer((req, res) => {
    const html = pages.get((req.url ?? '/').split('?')[0]);
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageBase = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  const [started, browser] = await Promise.all([
    // Free keys may have 2 jobs in progress here, so the busy-key retry can be watched. One page
    // makes 120 new images from this one browser: past the default per-client budget.
    startTestService('embedded', {
      MODEL_LATENCY_MS: String(MODEL_LATENCY_MS),
      WORKER_CONCURRENCY: '128',
      ACTIVE_JOBS_PER_KEY_FREE: '2',
      PUBLISHABLE_BUDGET_CLIENT_HOUR: '1000',
      PUBLISHABLE_BUDGET_CLIENT_DAY: '1000',
      PUBLISHABLE_BUDGET_KEY_HOUR: '1000',
      PUBLISHABLE_BUDGET_KEY_DAY: '1000',
    }),
    chromium.launchPersistentContext(profile, chromiumOptions({ width: 1100, height: 800 })),
  ]);
  service = started;
  context = browser;
  account = await service.createAccount({ plan: 'business' });
});

afterAll(async () => {
  await context?.close();
  await service?.stop();
  await new Promise((resolve) => pageServer?.close(resolve));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

it('resolves static images in one batch: equal prompts share an entry, shortcuts too, and the only global is PromptPix', async () => {
  const hero = await generate('a hero image for the shortcut');
  const link = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/permalinks`, { name: 'hero', imageIds: [hero.imageId] });
  expect(link.status).toBe(201);
  const url = servePage(
    '/static',
    `<img id="a1" data-service-prompt="a lighthouse at dusk" data-service-width="256" data-service-height="256">
     <img id="a2" data-service-prompt="a lighthouse at dusk" data-service-width="256" data-service-height="256">
     <img id="b" data-service-prompt="a fox in the snow" data-service-style="watercolor" data-service-width="256" data-service-height="256" data-service-format="png">
     <img id="s" data-service-shortcut="hero">
     <img id="bad" src="${FALLBACK}" data-service-prompt="too narrow" data-service-width="100">`,
  );
  const { page, errors, resolveCalls } = await openPage();
  await page.goto(url);
  await waitReady(page, '#a1, #a2, #b, #s');

  const [a1, a2, b, s, bad] = await Promise.all(['#a1', '#a2', '#b', '#s', '#bad'].map((id) => inspect(page, id)));
  for (const img of [a1, a2, b]) {
    expect(img.src).toMatch(new RegExp(`^${service.baseUrl}/`));
    expect(img.naturalWidth).toBe(256);
  }
  expect(a2.imageId).toBe(a1.imageId);
  expect(a2.src).toBe(a1.src);
  expect(b.imageId).not.toBe(a1.imageId);
  expect(s).toMatchObject({ src: hero.imageUrl, imageId: hero.imageId });
  // Out of bounds: refused in the page, not sent, fallback kept.
  expect(bad).toMatchObject({ state: 'failed', src: FALLBACK });
  expect(await page.getAttribute('#bad', 'data-service-error')).toMatch(/data-service-width/);

  expect(resolveCalls).toHaveLength(1);
  expect(resolveCalls[0].elements).toEqual([
    { id: expect.any(String), prompt: 'a lighthouse at dusk', width: 256, height: 256 },
    { id: expect.any(String), prompt: 'a fox in the snow', style: 'watercolor', width: 256, height: 256, format: 'png' },
    { id: expect.any(String), shortcut: 'hero' },
  ]);
  const globals = await page.evaluate(() => Object.keys(window).filter((k) => !(window as any).__globalsBefore.includes(k) && k !== '__globalsBefore'));
  expect(globals).toEqual(['PromptPix']);
  expect(errors).toEqual([]);
  await page.close();
});

it('resolves elements added after load and re-resolves an element whose attributes change (script in <head>)', async () => {
  const url = servePage('/dynamic', '<div id="box"></div>', { head: true });
  const { page, errors } = await openPage();
  await page.goto(url);
  await page.evaluate(() => {
    const img = document.createElement('img');
    img.id = 'late';
    img.setAttribute('data-service-prompt', 'a lighthouse at dusk');
    img.setAttribute('data-service-width', '256');
    img.setAttribute('data-service-height', '256');
    document.getElementById('box')!.appendChild(img);
  });
  await waitReady(page, '#late');
  const first = await inspect(page, '#late');
  expect(first.naturalWidth).toBe(256);

  await page.evaluate(() => document.getElementById('late')!.setAttribute('data-service-prompt', 'a paper boat on a puddle'));
  await page.waitForFunction(
    () =>
      document.getElementById('late')!.getAttribute('data-service-image-id') !== null &&
      document.getElementById('late')!.getAttribute('data-service-state') === 'loading',
  );
  // The previous image is the fallback while the new one generates.
  expect((await inspect(page, '#late')).src).toBe(first.src);
  await waitReady(page, '#late');
  const second = await inspect(page, '#late');
  expect(second.imageId).not.toBe(first.imageId);
  expect(second.naturalWidth).toBe(256);
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps the fallback src and shows the shimmer until the generated image is ready; no animation with reduced motion', async () => {
  const url = servePage(
    '/fallback',
    `<img id="fb" src="${FALLBACK}" data-service-prompt="a slow red bicycle" data-service-width="256" data-service-height="256">
     <img id="empty" style="width:auto;height:auto" data-service-prompt="a slow blue bicycle" data-service-width="256" data-service-height="256">`,
  );
  const { page, errors } = await openPage();
  const started = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('fb')!.getAttribute('data-service-state') === 'loading');
  // Mid-way through the 1.5 s generation.
  await page.waitForTimeout(700);
  expect(await inspect(page, '#fb')).toMatchObject({ state: 'loading', src: FALLBACK, animation: 'pp-shimmer' });
  expect(await inspect(page, '#empty')).toMatchObject({ state: 'loading', src: null, animation: 'pp-shimmer' });
  // Without a src and without a size from the page, the placeholder still has one, so the shimmer shows.
  const box = await page.$eval('#empty', (img) => img.getBoundingClientRect());
  expect(box.width).toBeGreaterThanOrEqual(48);
  expect(box.height).toBeGreaterThanOrEqual(48);

  await waitReady(page, '#fb, #empty');
  const done = await inspect(page, '#fb');
  expect(done.src).not.toBe(FALLBACK);
  expect(done.naturalWidth).toBe(256);
  expect(done.animation).toBe('none');
  expect(Date.now() - started).toBeGreaterThanOrEqual(MODEL_LATENCY_MS);

  const reduced = await openPage();
  await reduced.page.emulateMedia({ reducedMotion: 'reduce' });
  await reduced.page.goto(
    servePage('/reduced', `<img id="r" src="${FALLBACK}" data-service-prompt="a slow green bicycle" data-service-width="256" data-service-height="256">`),
  );
  await reduced.page.waitForFunction(() => document.getElementById('r')!.getAttribute('data-service-state') === 'loading');
  expect(await inspect(reduced.page, '#r')).toMatchObject({ state: 'loading', src: FALLBACK, animation: 'none' });
  await waitReady(reduced.page, '#r');
  expect([...errors, ...reduced.errors]).toEqual([]);
  await page.close();
  await reduced.page.close();
});

it('resolves 120 images with at most 3 resolve calls, one in flight at a time', async () => {
  const imgs = Array.from(
    { length: 120 },
    (_, i) => `<img data-service-prompt="crowd picture number ${i}" data-service-width="256" data-service-height="256">`,
  ).join('');
  const { page, errors, resolveCalls } = await openPage();
  const finished: number[] = [];
  page.on('requestfinished', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/api/v1/embed/resolve')) finished.push(Date.now());
  });
  await page.goto(servePage('/crowd', imgs));
  await waitReady(page, 'img[data-service-prompt]', 40_000);
  expect(resolveCalls.length).toBeLessThanOrEqual(3);
  expect(resolveCalls.map((c) => c.elements.length)).toEqual([50, 50, 20]);
  for (let i = 1; i < resolveCalls.length; i++) expect(resolveCalls[i].at).toBeGreaterThanOrEqual(finished[i - 1]);
  expect(new Set(resolveCalls.flatMap((c) => c.elements.map((e) => e.id))).size).toBe(120);
  expect(errors).toEqual([]);
  await page.close();
});

it('sends impressions (half visible, once per image) and clicks to the analytics store, also as the page goes away', async () => {
  // An account of its own: the other tests' pages report impressions too.
  const viewer = await service.createAccount({ plan: 'business' });
  const url = servePage(
    '/analytics',
    `<img id="top" data-service-prompt="a lighthouse at dusk" data-service-width="256" data-service-height="256">
     <div style="height:3000px"></div>
     <img id="bottom" data-service-prompt="a fox in the snow" data-service-style="watercolor" data-service-width="256" data-service-height="256" data-service-format="png">`,
    { key: viewer.publishableKey },
  );
  const { page, errors } = await openPage();
  const analyticsCalls: Array<{ events: Array<{ eventType: string; imageId: string }> }> = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/api/v1/analytics/events')) analyticsCalls.push(JSON.parse(request.postData() ?? '{}'));
  });
  await page.goto(url);
  await waitReady(page, '#top, #bottom');
  const top = (await inspect(page, '#top')).imageId!;
  const bottom = (await inspect(page, '#bottom')).imageId!;

  // Impressions go out with the periodic flush, three seconds after the first one.
  const periodic = page.waitForRequest((r) => r.url().endsWith('/api/v1/analytics/events'), { timeout: 8000 });
  await page.$eval('#bottom', (img) => img.scrollIntoView());
  await page.waitForTimeout(150);
  await page.$eval('#top', (img) => img.scrollIntoView());
  await periodic;
  expect(
    analyticsCalls
      .flatMap((c) => c.events)
      .map((e) => `${e.eventType} ${e.imageId}`)
      .sort(),
  ).toEqual([`impression ${bottom}`, `impression ${top}`].sort());

  // Back in view: no second impression. Clicks queue; leaving the page sends them (keepalive fetch)
  // well before their own periodic flush would.
  await page.waitForTimeout(150);
  await page.click('#top');
  await page.click('#top');
  expect(analyticsCalls).toHaveLength(1);
  await page.goto('about:blank');

  const rows = async () => {
    await service.infra.events.flush();
    return service.infra.db.prisma.analyticsEvent.findMany({ where: { account: { handle: viewer.handle }, eventType: { in: ['impression', 'click'] } } });
  };
  const deadline = Date.now() + 10_000;
  let stored = await rows();
  // Identical events stored together are one row with a count (docs/api/analytics.md).
  const events = () => stored.reduce((sum, e) => sum + e.count, 0);
  while (events() < 4 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    stored = await rows();
  }
  const summary = stored.flatMap((e) => Array<string>(e.count).fill(`${e.eventType} ${e.imageId}`)).sort();
  expect(summary).toEqual([`click ${top}`, `click ${top}`, `impression ${bottom}`, `impression ${top}`].sort());
  expect(errors).toEqual([]);
  await page.close();
});

it('waits the retryAfterMs of a 429 before sending the same resolve call again', async () => {
  const { page, errors } = await openPage();
  const attempts: Array<{ at: number; body: string }> = [];
  await page.route(`${service.baseUrl}/api/v1/embed/resolve`, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    attempts.push({ at: Date.now(), body: route.request().postData() ?? '' });
    if (attempts.length > 1) return route.continue();
    return route.fulfill({
      status: 429,
      headers: { 'access-control-allow-origin': '*', 'retry-after': '1' },
      contentType: 'application/json',
      body: JSON.stringify({ error: 'Rate limit exceeded', retryAfterMs: 800 }),
    });
  });
  await page.goto(
    servePage(
      '/limited',
      `<img id="l" src="${FALLBACK}" data-service-prompt="a fox in the snow" data-service-style="watercolor" data-service-width="256" data-service-height="256" data-service-format="png">`,
    ),
  );
  await waitReady(page, '#l');
  expect(attempts).toHaveLength(2);
  const gap = attempts[1].at - attempts[0].at;
  expect(gap).toBeGreaterThanOrEqual(800);
  expect(gap).toBeLessThan(3000);
  expect(attempts[1].body).toBe(attempts[0].body);
  // The browser logs the 429 itself; nothing else may go wrong.
  expect(errors.filter((e) => !/status of 429|response: 429/.test(e))).toEqual([]);
  await page.close();
});

it('resolves an element again when its key has too many jobs in progress, until every image is there', async () => {
  const free = await service.createAccount({ plan: 'free' });
  const { page, errors, resolveCalls } = await openPage();
  const imgs = [1, 2, 3, 4, 5]
    .map((n) => `<img class="busy" data-service-prompt="a busy key, picture ${n}" data-service-width="256" data-service-height="256">`)
    .join('');
  await page.goto(servePage('/busy', imgs, { key: free.publishableKey }));
  await waitReady(page, '.busy', 40_000);
  // Two started at once; the other three came back "busy" and were resolved again later.
  expect(resolveCalls.length).toBeGreaterThan(1);
  expect(resolveCalls.flatMap((c) => c.elements).length).toBeGreaterThan(5);
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps the fallbacks and stops calling once the service refuses the key', async () => {
  const { page, errors, resolveCalls } = await openPage();
  await page.goto(servePage('/refused', `<img id="x" src="${FALLBACK}" data-service-prompt="a fox in the snow">`, { key: `pk_live_${'x'.repeat(32)}` }));
  await page.waitForFunction(() => document.getElementById('x')!.getAttribute('data-service-state') === 'failed');
  expect(await page.getAttribute('#x', 'data-service-error')).toBe('Invalid API key');
  await page.evaluate((src) => {
    const img = document.createElement('img');
    img.id = 'y';
    img.src = src;
    img.setAttribute('data-service-prompt', 'another prompt');
    document.body.appendChild(img);
  }, FALLBACK);
  await page.waitForFunction(() => document.getElementById('y')!.getAttribute('data-service-state') === 'failed');
  expect(await inspect(page, '#y')).toMatchObject({ src: FALLBACK, animation: 'none' });
  expect(resolveCalls).toHaveLength(1);
  expect(errors.filter((e) => !/status of 401|response: 401/.test(e))).toEqual([]);
  await page.close();
});

it('signed prompts: a key in signed mode generates the images its site signed (data-service-sig), and only those', async () => {
  const created = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/keys`, {
    kind: 'publishable',
    name: 'signed site',
    domains: [],
    signedPrompts: true,
  });
  expect(created.status).toBe(201);
  const { body: settings } = await service.admin('PATCH', `/admin/api/v1/keys/${created.body.id}`, { budgetKeyPerDay: null });
  expect(settings.signedPrompts).toBe(true);
  // What the site's server does when it renders the page: sign each element's prompt, style and size.
  const sig = await signPrompt(settings.signingSecret, { prompt: 'a signed harbour at night', style: 'watercolor', width: 256, height: 256 });
  const forged = await signPrompt('pks_not-the-secret', { prompt: 'a signed harbour at night', style: 'watercolor', width: 256, height: 256 });
  const url = servePage(
    '/signed',
    `<img id="signed" src="${FALLBACK}" data-service-prompt="a signed harbour at night" data-service-style="watercolor" data-service-width="256" data-service-height="256" data-service-sig="${sig}">
     <img id="unsigned" src="${FALLBACK}" data-service-prompt="an unsigned harbour at night" data-service-width="256" data-service-height="256">
     <img id="forged" src="${FALLBACK}" data-service-prompt="a signed harbour at night" data-service-style="watercolor" data-service-width="256" data-service-height="256" data-service-sig="${forged}">`,
    { key: created.body.key },
  );
  const { page, resolveCalls } = await openPage();
  await page.goto(url);
  await waitReady(page, '#signed');
  await page.waitForFunction(() => ['#unsigned', '#forged'].every((s) => document.querySelector(s)?.getAttribute('data-service-state') === 'failed'));
  const [signed, unsigned, forgedImg] = await Promise.all(['#signed', '#unsigned', '#forged'].map((id) => inspect(page, id)));
  expect(signed.src).toMatch(new RegExp(`^${service.baseUrl}/`));
  expect(signed.naturalWidth).toBe(256);
  expect(unsigned).toMatchObject({ state: 'failed', src: FALLBACK });
  expect(await page.getAttribute('#unsigned', 'data-service-error')).toMatch(/signed prompts/);
  expect(forgedImg).toMatchObject({ state: 'failed', src: FALLBACK });
  expect(await page.getAttribute('#forged', 'data-service-error')).toMatch(/^sig: /);
  expect(resolveCalls[0].elements).toContainEqual({
    id: expect.any(String),
    prompt: 'a signed harbour at night',
    style: 'watercolor',
    width: 256,
    height: 256,
    sig,
  });
  await page.close();
});

it('follows a generating job over its event stream instead of polling', async () => {
  const { page, errors } = await openPage();
  const jobCalls: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(`${service.baseUrl}/api/v1/job/`)) jobCalls.push(request.url());
  });
  await page.goto(
    servePage('/stream', `<img id="live" src="${FALLBACK}" data-service-prompt="a kite followed live" data-service-width="256" data-service-height="256">`),
  );
  await waitReady(page, '#live');
  expect((await inspect(page, '#live')).naturalWidth).toBe(256);
  // The 1.5 s generation outlasts the first poll (after 1 s), so a polling script would show here.
  expect(jobCalls).toEqual([expect.stringMatching(new RegExp(`^${service.baseUrl}/api/v1/job/[\\w-]+/events\\?key=pk_live_`))]);
  expect(errors).toEqual([]);
  await page.close();
});

it('falls back to polling when the event stream breaks before the job ends', async () => {
  const { page, errors } = await openPage();
  const polls: string[] = [];
  await page.route(/\/api\/v1\/job\/[\w-]+\/events/, (route) => route.abort());
  page.on('request', (request) => {
    if (/\/api\/v1\/job\/[\w-]+$/.test(request.url())) polls.push(request.url());
  });
  await page.goto(
    servePage(
      '/stream-broken',
      `<img id="polled" src="${FALLBACK}" data-service-prompt="a kite followed the old way" data-service-width="256" data-service-height="256">`,
    ),
  );
  await waitReady(page, '#polled');
  expect((await inspect(page, '#polled')).naturalWidth).toBe(256);
  expect(polls.length).toBeGreaterThanOrEqual(1);
  // The browser logs the aborted stream itself; nothing else may go wrong.
  expect(errors.filter((e) => !/ERR_FAILED|net::/.test(e))).toEqual([]);
  await page.close();
});

it('serves a demo page that works with a publishable key (screenshots in test-artifacts/demo-loading.png, demo.png)', async () => {
  const { page, errors } = await openPage();
  await page.goto(`${service.baseUrl}/demo?key=${encodeURIComponent(account.publishableKey)}`);
  mkdirSync(TEST_ARTIFACTS, { recursive: true });
  await page.waitForFunction(() => document.querySelectorAll('[data-service-state="loading"]').length >= 4);
  await page.screenshot({ path: join(TEST_ARTIFACTS, 'demo-loading.png'), fullPage: true });
  // Four static images, two with a fallback, one added after two seconds.
  await page.waitForFunction(() => document.querySelectorAll('#dynamic img').length === 1, undefined, { timeout: 10_000 });
  await waitReady(page, '#static img, #fallback img[data-service-width], #dynamic img');
  const states = await page.$$eval('img[data-service-prompt]', (imgs) => imgs.map((img) => img.getAttribute('data-service-state')));
  // The instant-mode image has no shared library to draw from in this service: it keeps its fallback.
  expect(states.filter((s) => s === 'ready')).toHaveLength(6);
  await page.screenshot({ path: join(TEST_ARTIFACTS, 'demo.png'), fullPage: true });
  expect(errors).toEqual([]);
  await page.close();
});
