/**
 * Debian's Chromium for the dashboard's browser tests (playwright-core, no downloaded browser): one
 * persistent context that records page errors, console errors, Content-Security-Policy violations
 * and requests to other hosts; screenshots to test-artifacts/dashboard-*.png; an axe-core check.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { chromiumOptions, requireChromium, TEST_ARTIFACTS } from '@promptpix/testing';

/** A fetch the step makes fail on purpose: Chromium logs it as a console error, which is then expected. */
export interface ExpectedResourceError {
  status: number;
  path: string;
}

export interface DashboardBrowser {
  context: BrowserContext;
  /** The Chromium profile folder, also a scratch folder for files the test makes. */
  profile: string;
  /** Page errors, unexpected console errors and CSP reports of every watched page. */
  errors: string[];
  /** Requests to another origin than the service. */
  foreign: string[];
  watch(page: Page): Page;
  /**
   * Runs `step` with exactly these failed fetches allowed on `page`; each must have been logged by
   * the end of the step, any other console error is still an error.
   */
  expectingResourceErrors<T>(page: Page, expected: ExpectedResourceError[], step: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const FAILED_RESOURCE = /^Failed to load resource: the server responded with a status of (\d{3})\b/;

export async function launchDashboardBrowser(origin: string): Promise<DashboardBrowser> {
  requireChromium();
  const profile = mkdtempSync(join(tmpdir(), 'promptpix-dashboard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { ...chromiumOptions({ width: 1280, height: 900 }), acceptDownloads: true });
  // Runs before the app's script: records what the Content-Security-Policy blocked.
  await context.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  mkdirSync(TEST_ARTIFACTS, { recursive: true });

  const errors: string[] = [];
  const foreign: string[] = [];
  const allowed = new Map<Page, ExpectedResourceError[]>();

  const isExpected = (page: Page, message: ConsoleMessage): boolean => {
    const status = FAILED_RESOURCE.exec(message.text())?.[1];
    const pending = allowed.get(page);
    if (!status || !pending) return false;
    const path = new URL(message.location().url, origin).pathname;
    const index = pending.findIndex((e) => e.status === Number(status) && e.path === path);
    if (index < 0) return false;
    pending.splice(index, 1);
    return true;
  };

  return {
    context,
    profile,
    errors,
    foreign,
    watch(page) {
      page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && isExpected(page, message)) return;
        if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) errors.push(`console: ${message.text()} ${message.location().url}`);
      });
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.protocol !== 'data:' && url.protocol !== 'blob:' && url.origin !== origin) foreign.push(request.url());
      });
      return page;
    },
    async expectingResourceErrors(page, expected, step) {
      const pending = [...expected];
      allowed.set(page, pending);
      try {
        const result = await step();
        // The console event can trail the response the page has already shown.
        const deadline = Date.now() + 2000;
        while (pending.length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
        expect(pending).toEqual([]);
        return result;
      } finally {
        allowed.delete(page);
      }
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp ?? []);

/** Dismisses the toasts, so that the screenshot shows the page itself, and takes it. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dismiss = page.getByRole('button', { name: 'Dismiss notification' });
  // A toast may time out between the count and the click: then there is nothing left to click.
  for (let tries = 0; tries < 10 && (await dismiss.count()) > 0; tries++)
    await dismiss
      .first()
      .click({ timeout: 2000 })
      .catch(() => undefined);
  await expect(dismiss.count()).resolves.toBe(0);
  await page.screenshot({ path: join(TEST_ARTIFACTS, `dashboard-${name}.png`), fullPage: true });
}

let axeSource: string | undefined;

/**
 * Runs axe-core on the page as it is and fails on any violation above minor (moderate, serious,
 * critical). The engine is evaluated through the DevTools protocol, which the page's CSP does not
 * govern (a <script> would be blocked).
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const { axe } = window as unknown as { axe: typeof import('axe-core') };
    const results = await axe.run(document, { resultTypes: ['violations'] });
    return results.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  const found = violations.filter((v) => v.impact !== 'minor').map((v) => `${what}: ${v.id} (${v.impact}) ${v.help} at ${v.targets.join(', ')}`);
  expect(found).toEqual([]);
}
