/**
 * The dashboard's playground in Chromium: a signed-in user picks a style by its preview, generates,
 * follows the job live, gets the image with its actions (pin, save to permalink, "same prompt
 * again"), and reads the equivalent curl and SDK call with the key masked; the keyboard alone can
 * run it. Screenshots to test-artifacts/dashboard-playground*.png (the README's picture) and the
 * image itself to test-artifacts/playground-image.png; axe-core finds no violation above minor.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { TEST_ARTIFACTS } from '@promptpix/testing';
import { cspViolations, expectAccessible, launchDashboardBrowser, screenshot, type DashboardBrowser } from './testing/browser-harness';

jest.setTimeout(180_000);

let service: TestService;
let browser: DashboardBrowser;
let account: TestAccount;

/** Presses Tab until `target` has the focus. */
async function tabTo(page: Page, target: Locator, limit = 80): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${limit} presses of Tab did not reach ${target}`);
}

/** The playground's image once it has loaded, and its address. */
async function shownImage(page: Page, except?: string): Promise<string> {
  const image = page.locator('.playground-image img');
  await page.waitForFunction(
    (previous) => {
      const img = document.querySelector<HTMLImageElement>('.playground-image img');
      return !!img && img.complete && img.naturalWidth > 0 && img.src !== previous;
    },
    except ?? null,
    { timeout: 30_000 },
  );
  return (await image.getAttribute('src'))!;
}

beforeAll(async () => {
  // Style previews on, so the picker shows them (rendered once at start by the procedural model).
  service = await startTestService('embedded', { STYLE_PREVIEWS: 'on' });
  account = await service.createAccount();
  browser = await launchDashboardBrowser(service.baseUrl);
  await service.stylePreviews!.ready;
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('the playground in a browser', () => {
  it('makes and shows an image, live, with its actions and the equivalent calls', async () => {
    const link = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/sign-in-link`);
    expect(link.status).toBe(201);
    const page = browser.watch(await browser.context.newPage());
    await page.goto(link.body.url);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${service.baseUrl}/dashboard/images`);

    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
    await page.getByLabel('Prompt', { exact: true }).fill('a lighthouse on a cliff at sunset');
    const watercolor = page.getByRole('radio', { name: 'Watercolor' });
    await watercolor.check({ force: true });
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('.style-choice img')).every((i) => i.complete && i.naturalWidth > 0),
    );
    await expect(page.locator('.style-choice img').count()).resolves.toBeGreaterThan(4);
    await page.getByLabel('Format').selectOption('png');
    await page.getByLabel('Seed').fill('2026');
    await page.getByLabel('Negative prompt').fill('people, text');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();

    const first = await shownImage(page);
    expect(first).toMatch(/\.png$/);
    await page.getByText('1 of 100 generations used this month').waitFor();
    // The equivalent calls carry what was asked and never a key: only the secret key's prefix, masked.
    const curl = (await page.getByLabel('curl command', { exact: true }).textContent())!;
    expect(curl).toContain(`'${service.baseUrl}/api/v1/generate'`);
    expect(curl).toContain('"prompt":"a lighthouse on a cliff at sunset"');
    expect(curl).toContain('"style":"watercolor"');
    expect(curl).toContain('"seed":2026');
    expect(curl).toMatch(/Bearer sk_live_\w{4}…'/);
    expect(curl).not.toContain(account.secretKey);
    const sdk = (await page.getByLabel('SDK call', { exact: true }).textContent())!;
    expect(sdk).toContain('pp.generateAndWait(');
    expect(sdk).not.toContain(account.secretKey);
    const bytes = await page.request.get(first);
    writeFileSync(join(TEST_ARTIFACTS, 'playground-image.png'), await bytes.body());
    await page.setViewportSize({ width: 1280, height: 820 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(TEST_ARTIFACTS, 'dashboard-playground-viewport.png') });
    await screenshot(page, 'playground');
    await expectAccessible(page, 'playground');

    // The image's actions: pin, save to a permalink, then a new take of the same prompt.
    await page.getByRole('button', { name: 'Pin', exact: true }).click();
    await page.getByRole('button', { name: 'Unpin' }).waitFor();
    await page.getByLabel('Permalink name').fill('lighthouse');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('link', { name: `${service.baseUrl}/api/img/${account.handle}/lighthouse` }).waitFor();
    const again = page.getByRole('button', { name: 'Same prompt again' });
    await tabTo(page, again);
    await page.keyboard.press('Enter');
    const second = await shownImage(page, first);
    expect(second).not.toBe(first);
    await page.getByText('2 of 100 generations used this month').waitFor();

    // By keyboard alone: the prompt, a style by arrow keys, then Enter on Generate.
    await page.getByLabel('Prompt', { exact: true }).focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('a paper boat on a pond');
    await tabTo(page, page.getByRole('radio', { name: 'Generate' }));
    await page.keyboard.press('Tab');
    await expect(page.getByRole('radio', { name: 'Watercolor' }).evaluate((e) => e === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('ArrowLeft');
    const picked = await page.evaluate(() => (document.activeElement as HTMLInputElement).value);
    expect(picked).not.toBe('watercolor');
    await tabTo(page, page.getByRole('button', { name: 'Generate', exact: true }));
    await page.keyboard.press('Enter');
    const third = await shownImage(page, second);
    const curlNow = await page.getByLabel('curl command', { exact: true }).textContent();
    if (picked) expect(curlNow).toContain(`"style":"${picked}"`);
    else expect(curlNow).not.toContain('"style"');
    expect(curlNow).toContain('"prompt":"a paper boat on a pond"');
    expect(third).not.toBe(second);

    // Instant mode: the closest library image at once (none here yet: the library waits 30 days).
    await page.getByRole('radio', { name: /^Instant/ }).check();
    await browser.expectingResourceErrors(page, [{ status: 404, path: '/dashboard/api/playground' }], async () => {
      await page.getByRole('button', { name: 'Find instantly' }).click();
      await page.getByRole('alert').getByText('No library image is close enough').waitFor();
    });

    expect(await cspViolations(page)).toEqual([]);
    expect(browser.errors).toEqual([]);
    expect(browser.foreign).toEqual([]);
    const usage = await service.infra.accounts.findByHandle(account.handle);
    expect(usage?.quotaUsed).toBe(3);
  });
});
