/**
 * The API reference page in a real browser (Debian's Chromium via playwright-core): it renders
 * every documented operation from /api/openapi.json and loads nothing from another host.
 * A missing Chromium fails the run; it never skips.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { startTestService, type TestService } from '@promptpix/server/testing';
import { chromiumOptions, requireChromium, TEST_ARTIFACTS } from '@promptpix/testing';
import { methodsOf } from '../../openapi/document-walk';

jest.setTimeout(90_000);

let service: TestService;
let context: BrowserContext;
let profile: string;

beforeAll(async () => {
  requireChromium();
  service = await startTestService('embedded');
  profile = mkdtempSync(join(tmpdir(), 'promptpix-docs-chromium-'));
  context = await chromium.launchPersistentContext(profile, chromiumOptions({ width: 1280, height: 900 }));
});

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await service?.stop();
});

describe('GET /docs', () => {
  it('renders every operation of the document with assets from this service only', async () => {
    const document = await (await fetch(`${service.baseUrl}/api/openapi.json`)).json();
    // Swagger UI draws the outgoing webhooks (OpenAPI 3.1 `webhooks`) as operations too.
    const operations = [...Object.values<object>(document.paths), ...Object.values<object>(document.webhooks ?? {})].reduce(
      (n, item) => n + methodsOf(item).length,
      0,
    );

    const page = await context.newPage();
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.origin !== service.baseUrl) foreign.push(request.url());
    });

    const response = await page.goto(`${service.baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.waitForFunction((n) => document.querySelectorAll('.opblock').length === n, operations, { timeout: 30_000 });
    await expect(page.locator('.info .title').first().textContent()).resolves.toContain('PromptPix API');
    await expect(page.locator('.opblock-summary-path', { hasText: '/api/v1/generate' }).count()).resolves.toBeGreaterThan(0);

    // Opening an operation shows its request body schema, bounds included.
    await page.locator('#operations-Generation-generate .opblock-summary').click();
    await page.locator('#operations-Generation-generate .opblock-body').waitFor();
    const generate = await page.locator('#operations-Generation-generate').textContent();
    for (const text of ['X-Quota-Used', 'Rate limit exceeded', 'pending_approval', 'Generation quota exceeded']) expect(generate).toContain(text);

    mkdirSync(TEST_ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(TEST_ARTIFACTS, 'docs-reference.png'), fullPage: false });
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it('/docs/ (trailing slash) leads to the same rendered page, not a blank one', async () => {
    const moved = await fetch(`${service.baseUrl}/docs/?x=1`, { redirect: 'manual' });
    expect([moved.status, new URL(moved.headers.get('location') ?? '', `${service.baseUrl}/docs/`).href]).toEqual([301, `${service.baseUrl}/docs?x=1`]);

    const page = await context.newPage();
    const missing: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) missing.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(`${service.baseUrl}/docs/`);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(`${service.baseUrl}/docs`);
    expect(missing).toEqual([]);
    await page.close();
  });
});
