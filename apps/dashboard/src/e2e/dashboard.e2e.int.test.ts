/**
 * The account dashboard end to end in a real browser (Debian's Chromium via playwright-core):
 * a pending account signs in from the e-mailed link and waits; once approved it signs in again,
 * creates a key, finds its generated image, pins it, saves it as a permalink, regenerates it, uploads
 * a character, retries a failed job, exports its usage and signs out; the keyboard alone reaches the nav and the image
 * dialog; a used and an expired sign-in link each say so and lead to a new one. Every page is
 * screenshotted to test-artifacts/dashboard-*.png and checked with axe-core (no violation above
 * minor). The page must log no unexpected error, violate no CSP directive and load nothing from
 * another host. A missing Chromium fails the run; it never skips.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Locator, Page } from 'playwright-core';
import { startTestService, type TestService } from '@promptpix/server/testing';
import { latestSignInLink, waitForSignInLink } from '@promptpix/gateway/testing';
import { cspViolations, expectAccessible, launchDashboardBrowser, screenshot, type DashboardBrowser } from './testing/browser-harness';

jest.setTimeout(240_000);

let service: TestService;
let browser: DashboardBrowser;

/** Presses Tab until `target` has the focus; how many presses it took. */
async function tabTo(page: Page, target: Locator, limit = 40): Promise<number> {
  for (let presses = 1; presses <= limit; presses++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((element) => element === document.activeElement)) return presses;
  }
  throw new Error(`${limit} presses of Tab did not reach ${target}`);
}

const hasFocus = (target: Locator) => target.evaluate((element) => element === document.activeElement);

/** Screenshot, then the accessibility check of the same state. */
async function capture(page: Page, name: string, what: string): Promise<void> {
  await screenshot(page, name);
  await expectAccessible(page, what);
}

beforeAll(async () => {
  service = await startTestService('embedded');
  browser = await launchDashboardBrowser(service.baseUrl);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('the account dashboard in a browser', () => {
  it('signs in, manages images, permalinks, keys, characters, usage and the embed snippet, and signs out', async () => {
    const handle = `dash${process.pid}`;
    const email = `${handle}@example.com`;
    const outbox = service.config.mail.outboxDir;
    expect(outbox.startsWith(service.config.dataDir)).toBe(true);

    // A pending account signs in through the form and the e-mailed link, and waits for approval.
    expect((await service.admin('POST', '/admin/api/v1/accounts', { handle, email })).status).toBe(201);
    const errorsBefore = browser.errors.length;
    const page = browser.watch(await browser.context.newPage());
    let response = await page.goto(`${service.baseUrl}/dashboard/sign-in`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByLabel('E-mail address').fill(email);
    await capture(page, 'sign-in', 'sign-in');
    await page.getByRole('button', { name: 'Send sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    const firstLink = await waitForSignInLink(outbox, email);
    await page.goto(firstLink);
    await page.getByRole('heading', { name: 'Sign in to PromptPix' }).waitFor();
    expect(new URL(page.url()).hash).toBe('');
    await capture(page, 'sign-in-link', 'sign-in link');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Waiting for approval' }).waitFor();
    await capture(page, 'pending', 'pending');

    // Approval mails a fresh link; an image generated meanwhile with a secret key will be in Images.
    const approved = await service.admin('PATCH', `/admin/api/v1/accounts/${handle}`, { status: 'approved' });
    expect(approved.status).toBe(200);
    const approvalLink = await waitForSignInLink(outbox, email, { except: [firstLink] });
    const secret = await service.admin('POST', `/admin/api/v1/accounts/${handle}/keys`, { kind: 'secret', name: 'server', domains: [] });
    expect(secret.status).toBe(201);
    const generated = await fetch(`${service.baseUrl}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret.body.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a red lighthouse on a cliff at dawn' }),
    });
    expect(generated.status).toBe(202);
    const job = await service.waitForJob((await generated.json()).jobId, secret.body.key, 30_000);
    expect(job.status).toBe('completed');

    await page.goto(approvalLink);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${service.baseUrl}/dashboard/images`);
    await expect(page.locator('.topbar-account').textContent()).resolves.toContain(`@${handle}`);

    // Integration: a publishable key, shown once.
    await page.getByRole('link', { name: 'Integration' }).click();
    await page.getByRole('heading', { name: 'Integration', level: 1 }).waitFor();
    await page.getByText('Publishable', { exact: true }).click();
    await page.getByLabel('Name').fill('marketing site');
    await page.getByLabel('Allowed domains').fill('example.com, www.example.com');
    await page.getByRole('button', { name: 'Create key' }).click();
    const keyField = page.getByRole('textbox', { name: 'Publishable key “marketing site”', exact: true });
    await keyField.waitFor();
    const publishableKey = await keyField.inputValue();
    expect(publishableKey).toMatch(/^pk_/);
    await expect(page.getByText('It is shown only once').count()).resolves.toBe(1);
    await expect(page.locator('table').textContent()).resolves.toContain('www.example.com');
    await capture(page, 'keys', 'integration/keys');

    // The publishable key's budgets: what it spent per day, its own budget, signed mode and its signing secret.
    await page.getByRole('button', { name: 'Budgets of key marketing site' }).click();
    await page.getByRole('table', { name: 'Fresh generations per day' }).waitFor();
    await page.getByLabel('Whole key, per day').fill('5');
    await page.getByLabel('Only generate signed prompts (data-service-sig)').check();
    await page.getByRole('button', { name: 'Save budgets' }).click();
    await page.getByRole('status').getByText('Budgets saved').waitFor({ state: 'visible' });
    const signingSecret = await page.getByRole('textbox', { name: 'Signing secret (keep it on your server)', exact: true }).inputValue();
    expect(signingSecret).toMatch(/^pks_/);
    await expect(page.getByLabel('Whole key, per day').inputValue()).resolves.toBe('5');
    await capture(page, 'key-budgets', 'integration/key budgets');
    await page.getByRole('button', { name: 'Close' }).click();

    // Images: the generated image, its detail, pin, permalink.
    await page.getByRole('link', { name: 'Images' }).click();
    const card = page.locator('.image-card').first();
    await card.waitFor();
    await expect(page.locator('.image-card').count()).resolves.toBe(1);
    await page.waitForFunction(() => Array.from(document.querySelectorAll<HTMLImageElement>('.image-card img')).every((i) => i.complete && i.naturalWidth > 0));
    await capture(page, 'images', 'images');
    await card.getByRole('link').click();
    await page.waitForURL(`${service.baseUrl}/dashboard/images/${job.imageId}`);
    const dialog = page.getByRole('dialog', { name: 'Image details' });
    await dialog.getByText('a red lighthouse on a cliff at dawn').first().waitFor();
    await dialog.getByRole('button', { name: 'Pin', exact: true }).click();
    await dialog.getByRole('button', { name: 'Unpin' }).waitFor();
    // The toast shows inside the modal dialog, above its backdrop, where it is not inert.
    await dialog.getByRole('status').getByText('Image pinned').waitFor({ state: 'visible' });
    // A name the server refuses shows the server's own rule at the field.
    const permalinkName = dialog.getByLabel('Permalink name');
    await expect(dialog.getByText('Letters, digits and . _ ~ -').count()).resolves.toBe(1);
    await browser.expectingResourceErrors(page, [{ status: 400, path: `/dashboard/api/images/${job.imageId}/permalink` }], async () => {
      await permalinkName.fill('lighthouse hero!');
      await dialog.getByRole('button', { name: 'Save', exact: true }).click();
      await dialog.getByText('letters, digits and . _ ~ -, 1 to 200 characters').waitFor();
    });
    await expect(permalinkName.getAttribute('aria-invalid')).resolves.toBe('true');
    await permalinkName.fill('lighthouse-hero');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    const permanent = dialog.locator('.saved-permalink a');
    await permanent.waitFor();
    const permanentUrl = await permanent.getAttribute('href');
    expect(permanentUrl).toContain(`/api/img/${handle}/lighthouse-hero`);
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('.detail-media img')?.naturalWidth ?? 0) > 0);
    await expect(dialog.getByText('letters, digits and . _ ~ -, 1 to 200 characters').count()).resolves.toBe(0);
    await capture(page, 'image-detail', 'image detail dialog');

    // Regenerate: live progress from polling the job, then the new take, which joins the original's permalink.
    await dialog.getByRole('button', { name: 'Regenerate', exact: true }).click();
    const progress = dialog.getByRole('list', { name: 'Job progress' });
    await progress.waitFor();
    const newTake = dialog.locator('.regen-result img');
    await newTake.waitFor({ timeout: 30_000 });
    await expect(progress.locator('li.done').count()).resolves.toBe(3);
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('.regen-result img')?.naturalWidth ?? 0) > 0);
    await expect(dialog.getByRole('button', { name: 'Regenerate', exact: true }).isEnabled()).resolves.toBe(true);
    const newImageId = (await dialog.getByRole('link', { name: 'Open it' }).getAttribute('href'))!.split('/').pop()!;
    expect(newImageId).not.toBe(job.imageId);
    await dialog.locator('.regen-result').scrollIntoViewIfNeeded();
    await capture(page, 'regenerate', 'image detail dialog after regenerating');
    await page.keyboard.press('Escape');
    await page.waitForURL(`${service.baseUrl}/dashboard/images`);
    await expect(page.locator('.image-card').count()).resolves.toBe(2);
    await expect(page.locator('.image-card .badge', { hasText: 'Pinned' }).count()).resolves.toBe(1);

    // Permalinks: the permanent URL serves the image.
    await page.getByRole('link', { name: 'Permalinks' }).click();
    await page.getByRole('heading', { name: 'lighthouse-hero' }).waitFor();
    await expect(page.getByRole('textbox', { name: 'Permanent URL', exact: true }).inputValue()).resolves.toBe(permanentUrl);
    await expect(page.getByRole('textbox', { name: 'HTML snippet', exact: true }).inputValue()).resolves.toContain('<img');
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('.permalink-hero img')?.naturalWidth ?? 0) > 0);
    const takes = page.getByRole('list', { name: 'Images in lighthouse-hero' });
    await expect(takes.getByRole('link').count()).resolves.toBe(2);
    await expect(takes.locator(`a[href="/dashboard/images/${newImageId}"]`).count()).resolves.toBe(1);
    await expect(page.locator('.permalink-card .badge').textContent()).resolves.toBe('2 images');
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('.thumb-strip img')).every((i) => i.complete && i.naturalWidth > 0),
    );
    await capture(page, 'permalinks', 'permalinks');
    const served = await page.request.get(permanentUrl!);
    expect(served.status()).toBe(200);
    expect(served.headers()['content-type']).toMatch(/^image\//);
    expect((await served.body()).length).toBeGreaterThan(100);

    // Characters: from a photo, previewed before upload.
    const photo = join(browser.profile, 'mira.png');
    await sharp({ create: { width: 96, height: 96, channels: 3, background: { r: 200, g: 120, b: 60 } } })
      .composite([
        {
          input: await sharp({ create: { width: 40, height: 40, channels: 3, background: { r: 40, g: 60, b: 160 } } })
            .png()
            .toBuffer(),
          top: 28,
          left: 28,
        },
      ])
      .png()
      .toFile(photo);
    await page.getByRole('link', { name: 'Characters' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Captain Mira');
    await page.getByLabel('Description (optional)').fill('Our mascot');
    await page.getByLabel('Reference photos').setInputFiles(photo);
    await page.locator('.photo-previews img').waitFor();
    await page.getByRole('button', { name: 'Create character' }).click();
    await page.locator('.character', { hasText: 'Captain Mira' }).waitFor();
    await expect(page.locator('.character', { hasText: 'Captain Mira' }).textContent()).resolves.toContain('1 reference');
    await capture(page, 'characters', 'characters');

    // Styles: presets and an own style.
    await page.getByRole('link', { name: 'Styles' }).click();
    await page.getByRole('heading', { name: 'Presets' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('brand-flat');
    await page.getByLabel('Prompt template').fill('{prompt}, flat vector illustration, brand colours');
    await page.getByRole('button', { name: 'Create style' }).click();
    await page.locator('.own-styles li', { hasText: 'brand-flat' }).waitFor();
    await capture(page, 'styles', 'styles');

    // Usage: the quota, charts, a failed job retried from its card, and a CSV export. The failed
    // job is written as the worker writes one when a provider fails for good.
    const account = (await service.infra.accounts.findByHandle(handle))!;
    const failedAt = new Date();
    await service.infra.failedJobs.record({
      jobId: `failed-${process.pid}`,
      accountId: account.id,
      model: 'procedural',
      reason: 'provider returned HTTP 503',
      request: { prompt: 'a paper boat that failed once', strength: 0.7, width: 256, height: 256, format: 'webp' },
      createdAt: failedAt,
      failedAt,
    });
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.locator('.chart-svg').first().waitFor();
    await expect(page.locator('.chart-svg').count()).resolves.toBe(4);
    const failedRow = page.locator('tr', { hasText: 'a paper boat that failed once' });
    await expect(failedRow.getByText('provider returned HTTP 503').count()).resolves.toBe(1);
    await expect(failedRow.getByText('procedural').count()).resolves.toBe(1);
    await capture(page, 'usage', 'usage');
    const quotaValue = page.locator('.stat-quota .stat-value');
    const usedBefore = Number((await quotaValue.textContent())!.trim().split(/\s/)[0]);
    await failedRow.getByRole('button', { name: /^Retry/ }).click();
    await failedRow.getByRole('link', { name: 'Open the new image' }).waitFor();
    // Charged like a new generation, and the quota card says so.
    await page.locator('.stat-quota .stat-value', { hasText: new RegExp(`^\\s*${usedBefore + 1}\\s*/`) }).waitFor();
    await expect(failedRow.getByRole('button', { name: /^Retry/ }).count()).resolves.toBe(0);
    await capture(page, 'usage-retried', 'usage after a retry');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split(/\r?\n/)[0]).toBe('date,generations,cache_hits,impressions,clicks');

    // Embed: the snippet carries the publishable key created in this browser.
    await page.getByRole('link', { name: 'Embed' }).click();
    const snippet = page.getByRole('textbox', { name: 'Script tag and sample image', exact: true });
    await snippet.waitFor();
    await expect(snippet.inputValue()).resolves.toContain(publishableKey);
    await expect(snippet.inputValue()).resolves.not.toContain('{{KEY}}');
    await page.getByLabel('Prompt', { exact: true }).fill('a red lighthouse on a cliff at dawn');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('.preview-stage img')?.naturalWidth ?? 0) > 0, undefined, { timeout: 30_000 });
    await capture(page, 'embed', 'embed');
    expect(await cspViolations(page)).toEqual([]);

    // The keyboard alone: Tab from the top of Images reaches the sidebar's Permalinks, Enter opens it;
    // an image card opens its dialog with Enter, Escape closes it and the focus is back on that card.
    await page.goto(`${service.baseUrl}/dashboard/images`);
    await page.locator('.image-card').first().waitFor();
    await tabTo(page, page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Permalinks' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${service.baseUrl}/dashboard/permalinks`);
    await page.getByRole('heading', { name: 'lighthouse-hero' }).waitFor();
    await expect(hasFocus(page.getByRole('heading', { name: 'Permalinks', level: 1 }))).resolves.toBe(true);
    await page.goBack();
    await page.waitForURL(`${service.baseUrl}/dashboard/images`);
    await page.waitForFunction(() => document.activeElement?.id === 'page-title');
    const firstCard = page.locator('.image-card-link').first();
    await firstCard.waitFor();
    await tabTo(page, firstCard);
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await expect(dialog.evaluate((element) => element.contains(document.activeElement))).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await page.waitForURL(`${service.baseUrl}/dashboard/images`);
    await dialog.waitFor({ state: 'hidden' });
    await expect(hasFocus(firstCard)).resolves.toBe(true);

    // A phone: the nav collapses behind a menu button.
    const phone = browser.watch(await browser.context.newPage());
    await phone.setViewportSize({ width: 375, height: 812 });
    await phone.goto(`${service.baseUrl}/dashboard/images`);
    await phone.locator('.image-card').first().waitFor();
    await phone.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('.image-card img')).every((i) => i.complete && i.naturalWidth > 0),
    );
    const menu = phone.getByRole('button', { name: 'Menu' });
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(phone.getByRole('link', { name: 'Permalinks' }).isVisible()).resolves.toBe(false);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await capture(phone, 'images-phone', 'images at 375×812');
    await menu.click();
    await phone.getByRole('link', { name: 'Permalinks' }).waitFor({ state: 'visible' });
    await capture(phone, 'nav-phone', 'open menu at 375×812');
    expect(await cspViolations(phone)).toEqual([]);
    await phone.close();

    // Sign out: the session is gone.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${service.baseUrl}/dashboard/sign-in`);
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    const session = await page.request.get(`${service.baseUrl}/dashboard/api/session`);
    expect(session.status()).toBe(401);
    expect(await latestSignInLink(outbox, email)).toBe(approvalLink);

    expect(browser.errors.slice(errorsBefore)).toEqual([]);
    expect(browser.foreign).toEqual([]);
    response = null;
    await page.close();
  });

  it('says whether a sign-in link was used or expired, and sends a new one from the same page', async () => {
    const errorsBefore = browser.errors.length;
    const handle = `links${process.pid}`;
    const email = `${handle}@example.com`;
    const outbox = service.config.mail.outboxDir;
    expect((await service.admin('POST', '/admin/api/v1/accounts', { handle, email, status: 'approved' })).status).toBe(201);
    const account = await service.infra.accounts.findByHandle(handle);
    const used = await service.infra.signInLinks.create(account!.id, new Date(Date.now() + 10 * 60_000));
    expect(await service.infra.signInLinks.consume(used.token, new Date())).toEqual({ outcome: 'ok', accountId: account!.id });
    const expired = await service.infra.signInLinks.create(account!.id, new Date(Date.now() - 1000));

    const page = browser.watch(await browser.context.newPage());
    let fresh: string | null = await latestSignInLink(outbox, email);
    for (const [name, token, message] of [
      ['used', used.token, 'This sign-in link has already been used'],
      ['expired', expired.token, 'This sign-in link has expired'],
    ] as const) {
      // The second time the page is already open: only the fragment changes, as when a mail client reuses the tab.
      await page.goto(`${service.baseUrl}/dashboard/sign-in#token=${encodeURIComponent(token)}`);
      await browser.expectingResourceErrors(page, [{ status: 410, path: '/dashboard/api/sign-in/confirm' }], async () => {
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('alert').filter({ hasText: message }).waitFor();
      });
      await capture(page, `link-${name}`, `${name} sign-in link`);
      await page.getByRole('button', { name: 'Request a new link' }).click();
      const address = page.getByLabel('E-mail address');
      await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'email');
      await address.fill(email);
      await page.getByRole('button', { name: 'Send sign-in link' }).click();
      await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
      fresh = await waitForSignInLink(outbox, email, { except: [fresh] });
    }

    // The link the page asked for signs in.
    await page.goto(fresh!);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${service.baseUrl}/dashboard/images`);
    await expect(page.locator('.topbar-account').textContent()).resolves.toContain(`@${handle}`);
    expect(await cspViolations(page)).toEqual([]);
    expect(browser.errors.slice(errorsBefore)).toEqual([]);
    expect(browser.foreign).toEqual([]);
    await page.close();
  });
});
