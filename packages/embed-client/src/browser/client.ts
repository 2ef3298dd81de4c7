/**
 * The page script's behaviour: find service images (now and as the page changes), resolve them in
 * batches, follow generating jobs (event stream, else polling), swap images in, and report impressions and clicks.
 * Every callback that the browser invokes is wrapped: nothing here may throw into the host page.
 */
import type { AnalyticsEventInput, EmbedResolveResponse, JobView } from '@promptpix/contracts';
import { createBatcher } from './batch';
import { BUSY_RETRY_MS, POLL_LIMIT_MS, pollDelay, rateLimitDelay, retriesBusy, retryDelay } from './backoff';
import { readElement, WATCHED, type ElementRequest } from './element';

/** Attribute the script sets on every element it handles: loading, ready or failed. */
export const STATE = 'data-service-state';
const ERROR = 'data-service-error';
const IMAGE_ID = 'data-service-image-id';
const SELECTOR = 'img[data-service-prompt],img[data-service-shortcut]';

/** Resolve calls: coalesce for this long, send at most this many elements (spec: 1 to 50). */
const RESOLVE_WAIT_MS = 40;
const RESOLVE_MAX = 50;
/** Analytics: send queued events this long after the first one, at most 100 per call (spec). */
const EVENTS_WAIT_MS = 3000;
const EVENTS_MAX = 100;
const EVENTS_KEPT = 1000;
const NETWORK_ATTEMPTS = 5;
/** Job event streams open at once: over HTTP/1.1 a browser allows six connections per host, and resolve calls and images need the rest. */
const MAX_STREAMS = 2;

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;

const CSS =
  `img[${STATE}=loading]{background:linear-gradient(90deg,#8881 30%,#8883 50%,#8881 70%) 0 0/300% 100%;animation:pp-shimmer 1.4s linear infinite}` +
  `img[${STATE}=loading]:not([src]){display:inline-block;min-width:48px;min-height:48px;color:transparent}` +
  `@keyframes pp-shimmer{0%{background-position:100% 0}50%{opacity:.6}to{background-position:0 0}}` +
  `@media (prefers-reduced-motion:reduce){img[${STATE}=loading]{animation:none}}`;

/** One resolve entry, shared by every element with the same prompt, style, size, format and mode. */
interface Entry {
  id: string;
  key: string;
  request: ElementRequest;
  imgs: Set<HTMLImageElement>;
  /** Times the service answered that the key had too many jobs in progress. */
  busy?: number;
  url?: string;
  imageId?: string;
}

/** An answer of the API, typed with the service's wire types (@promptpix/contracts); any field may be missing from an error body. */
interface Reply<T = unknown> {
  status: number;
  body: (Partial<T> & { error?: string; retryAfterMs?: number }) | null | undefined;
}

const noop = () => undefined;

/** Runs fn, swallowing anything it throws: host pages never see our errors. */
const safe =
  <A extends unknown[]>(fn: (...args: A) => unknown) =>
  (...args: A): void => {
    try {
      fn(...args);
    } catch {
      // never into the host page
    }
  };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function start(base: string, key: string, doc: Document): void {
  const entries = new Map<string, Entry>();
  const tracked = new WeakMap<HTMLImageElement, Entry>();
  let labels = 0;
  /** Set once the service refuses the key (401/403: unknown key, account not approved, origin not allowed); retrying does not help. */
  let refused = '';

  /**
   * One API call. Retries network errors and 5xx with backoff, and a 429 after the body's
   * retryAfterMs. `once` (analytics) never retries: the spec says to drop such a batch.
   */
  async function call<T = unknown>(path: string, body?: unknown, once?: boolean): Promise<Reply<T>> {
    for (let attempt = 0; ; attempt++) {
      let reply: Reply<T> = { status: 0, body: null };
      try {
        const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
        if (body) headers['Content-Type'] = 'application/json';
        const res = await fetch(base + path, {
          method: body ? 'POST' : 'GET',
          headers,
          body: body ? JSON.stringify(body) : undefined,
          keepalive: once,
          credentials: 'omit',
        });
        reply = { status: res.status, body: await res.json().catch(noop) };
      } catch {
        // network error: status 0
      }
      const { status } = reply;
      if (once || attempt >= NETWORK_ATTEMPTS - 1 || (status && status < 500 && status !== 429)) return reply;
      await sleep(status === 429 ? rateLimitDelay(reply.body, attempt) : retryDelay(attempt));
    }
  }

  // ---- elements --------------------------------------------------------------------------

  const mark = (img: HTMLImageElement, state: string) => img.setAttribute(STATE, state);

  function show(entry: Entry, img: HTMLImageElement): void {
    img.removeAttribute('srcset');
    img.src = entry.url!;
    img.setAttribute(IMAGE_ID, entry.imageId || '');
    mark(img, 'ready');
    impressions?.observe(img);
  }

  function fail(entry: Entry, error: unknown): void {
    // Forget the entry: an element added later with the same attributes tries again.
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
    entry.imgs.forEach((img) => {
      mark(img, 'failed');
      img.setAttribute(ERROR, String(error || 'failed'));
    });
  }

  /** Preload once per entry, then swap every element in together; the fallback stays until then. */
  function ready(entry: Entry, url: unknown, imageId: unknown): void {
    if (typeof url !== 'string') {
      fail(entry, 'no image');
      return;
    }
    const preload = new Image();
    preload.onload = safe(() => {
      entry.url = url;
      entry.imageId = String(imageId || '');
      entry.imgs.forEach((img) => {
        show(entry, img);
      });
    });
    preload.onerror = safe(() => fail(entry, 'image did not load'));
    preload.src = url;
  }

  async function poll(entry: Entry, jobId: string): Promise<void> {
    const started = Date.now();
    for (let attempt = 0; Date.now() - started < POLL_LIMIT_MS; attempt++) {
      await sleep(pollDelay(attempt));
      const { status, body } = await call<JobView>(`/api/v1/job/${encodeURIComponent(jobId)}`);
      if (status === 200 && body?.status === 'completed') return ready(entry, body.imageUrl, body.imageId);
      if (status === 200 && body?.status === 'failed') return fail(entry, body.error);
      if (status >= 400 && status < 500) return fail(entry, body?.error || `job ${status}`);
    }
    fail(entry, 'timed out');
  }

  let streams = 0;

  /** The constructor throws where the browser will not open the URL (a SecurityError): then polling it is. */
  function openStream(jobId: string): EventSource | null {
    try {
      return new EventSource(`${base}/api/v1/job/${encodeURIComponent(jobId)}/events?key=${encodeURIComponent(key)}`);
    } catch {
      return null;
    }
  }

  /** Follows a job over its event stream where the browser has EventSource and a stream to spare; polls otherwise, or once the stream breaks before the end. */
  function follow(entry: Entry, jobId: string): void {
    const pollJob = () => void poll(entry, jobId).catch((error) => fail(entry, error));
    const source = typeof EventSource === 'function' && streams < MAX_STREAMS ? openStream(jobId) : null;
    if (!source) {
      pollJob();
      return;
    }
    streams++;
    let following = true;
    const end = (then: () => void) => {
      if (!following) return;
      following = false;
      streams--;
      clearTimeout(timer);
      source.close();
      then();
    };
    const timer = setTimeout(
      safe(() => end(() => fail(entry, 'timed out'))),
      POLL_LIMIT_MS,
    );
    source.addEventListener(
      'status',
      safe((event: MessageEvent) => {
        const job = JSON.parse(event.data) as Partial<JobView>;
        if (job.status === 'completed') end(() => ready(entry, job.imageUrl, job.imageId));
        if (job.status === 'failed') end(() => fail(entry, job.error));
      }),
    );
    // A 404, a refused key or a broken connection: the poll loop decides (and reports) what it means.
    source.onerror = safe(() => end(pollJob));
  }

  const resolve = createBatcher<Entry>(
    async (batch) => {
      const reply = await call<EmbedResolveResponse>('/api/v1/embed/resolve', { elements: batch.map((entry) => ({ id: entry.id, ...entry.request })) });
      if (reply.status === 401 || reply.status === 403) refused = reply.body?.error || 'refused';
      const results = (reply.status === 200 && reply.body?.results) || [];
      batch.forEach(
        safe((entry: Entry, i: number) => {
          const result = results[i]?.id === entry.id ? results[i] : results.find((r) => r?.id === entry.id);
          if (result?.status === 'ready') ready(entry, result.imageUrl, result.imageId);
          else if (result?.status === 'generating' && result.jobId) follow(entry, result.jobId);
          else if (retriesBusy(result?.error, entry.busy ?? 0)) {
            // Other images of this key are still generating: this one waits its turn.
            entry.busy = (entry.busy ?? 0) + 1;
            setTimeout(
              safe(() => resolve(entry)),
              BUSY_RETRY_MS,
            );
          } else fail(entry, result?.error || reply.body?.error || 'resolve failed');
        }),
      );
    },
    RESOLVE_MAX,
    RESOLVE_WAIT_MS,
  );

  /** (Re)reads an element's attributes and attaches it to the matching entry. */
  function consider(img: HTMLImageElement): void {
    if (img.tagName !== 'IMG') return;
    const request = readElement((name) => img.getAttribute(name));
    const key = request && !('error' in request) ? JSON.stringify(request) : '';
    const previous = tracked.get(img);
    if (previous && previous.key === key) return;
    previous?.imgs.delete(img);
    tracked.delete(img);
    img.removeAttribute(ERROR);
    img.removeAttribute(STATE);
    if (!request) return;
    if ('error' in request || refused) {
      mark(img, 'failed');
      img.setAttribute(ERROR, 'error' in request ? request.error : refused);
      return;
    }
    let entry = entries.get(key);
    if (!entry) {
      entry = { id: `e${++labels}`, key, request, imgs: new Set() };
      entries.set(key, entry);
      resolve(entry);
    }
    entry.imgs.add(img);
    tracked.set(img, entry);
    if (entry.url) show(entry, img);
    else mark(img, 'loading');
  }

  const scan = (root: Element | Document) => {
    if (root instanceof Element && root.matches(SELECTOR)) consider(root as HTMLImageElement);
    root.querySelectorAll<HTMLImageElement>(SELECTOR).forEach(safe(consider));
  };

  // ---- analytics ---------------------------------------------------------------------------

  const events: AnalyticsEventInput[] = [];
  let eventsTimer: ReturnType<typeof setTimeout> | undefined;
  let pausedUntil = 0;
  const seen = new Set<string>();

  function flushEvents(): void {
    clearTimeout(eventsTimer);
    eventsTimer = undefined;
    const wait = pausedUntil - Date.now();
    if (wait > 0) {
      if (events.length) eventsTimer = setTimeout(safe(flushEvents), wait);
      return;
    }
    while (events.length) {
      // keepalive lets the request outlive the page; sendBeacon cannot carry the Authorization header.
      call('/api/v1/analytics/events', { events: events.splice(0, EVENTS_MAX) }, true)
        .then((reply) => {
          // Spec: a 429 on analytics drops the batch; hold the next ones back for retryAfterMs.
          if (reply.status === 429) pausedUntil = Date.now() + rateLimitDelay(reply.body, 0);
        })
        .catch(noop);
    }
  }

  function track(eventType: Extract<AnalyticsEventInput['eventType'], 'impression' | 'click'>, img: Element): void {
    const imageId = img.getAttribute(IMAGE_ID) || '';
    if (!UUID.test(imageId) || !tracked.has(img as HTMLImageElement)) return;
    if (events.push({ eventType, imageId }) > EVENTS_KEPT) events.shift();
    if (events.length >= EVENTS_MAX) flushEvents();
    else eventsTimer ??= setTimeout(safe(flushEvents), EVENTS_WAIT_MS);
  }

  // Half visible, once per image per page.
  const impressions =
    typeof IntersectionObserver === 'function'
      ? new IntersectionObserver(
          safe((observed: IntersectionObserverEntry[]) =>
            observed.forEach(({ target, isIntersecting, intersectionRatio }) => {
              const imageId = target.getAttribute(IMAGE_ID) || '';
              if (!isIntersecting || intersectionRatio < 0.499 || !imageId) return;
              impressions!.unobserve(target);
              if (seen.has(imageId)) return;
              seen.add(imageId);
              track('impression', target);
            }),
          ),
          { threshold: 0.5 },
        )
      : null;

  // ---- wiring ------------------------------------------------------------------------------

  const style = doc.createElement('style');
  style.textContent = CSS;
  (doc.head || doc.documentElement).appendChild(style);

  doc.addEventListener(
    'click',
    safe((event: Event) => track('click', event.target as Element)),
    true,
  );
  doc.addEventListener(
    'visibilitychange',
    safe(() => doc.visibilityState === 'hidden' && flushEvents()),
  );
  addEventListener('pagehide', safe(flushEvents));

  new MutationObserver(
    safe((records: MutationRecord[]) =>
      records.forEach(
        safe((record: MutationRecord) => {
          if (record.type === 'attributes') consider(record.target as HTMLImageElement);
          else
            record.addedNodes.forEach((node) => {
              if (node instanceof Element) scan(node);
            });
        }),
      ),
    ),
  ).observe(doc.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: WATCHED });
  scan(doc);
}
