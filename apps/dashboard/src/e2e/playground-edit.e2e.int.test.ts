/**
 * Editing an image in the playground, in Chromium: a user picks an image file, paints a stroke of
 * the mask (and tries the keyboard's brush and Clear), runs the edit, follows it to the end and
 * compares before and after, then upscales the result. The result, fetched as the page shows it, has changed inside the
 * painted stroke and kept every pixel outside it. axe-core finds no violation above minor; the
 * screenshot is test-artifacts/dashboard-playground-edit.png, and docs/images/playground-edit.png
 * with UPDATE_SCREENSHOTS=1.
 */
import { join } from 'node:path';
import sharp from 'sharp';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { TEST_ARTIFACTS } from '@promptpix/testing';
import { cspViolations, expectAccessible, launchDashboardBrowser, type DashboardBrowser } from './testing/browser-harness';

jest.setTimeout(120_000);

const WIDTH = 512;
const HEIGHT = 384;
const DOCS_PICTURE = join(__dirname, '../../../../docs/images/playground-edit.png');

let service: TestService;
let browser: DashboardBrowser;
let account: TestAccount;

beforeAll(async () => {
  service = await startTestService('embedded');
  account = await service.createAccount();
  browser = await launchDashboardBrowser(service.baseUrl);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** A picture to edit, made by the service through the public API (the procedural model): a scene with something to keep. */
async function original(): Promise<Buffer> {
  const started = await fetch(`${service.baseUrl}/api/v1/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a lighthouse on a cliff at sunset', style: 'watercolor', width: WIDTH, height: HEIGHT, format: 'png', seed: 31 }),
  });
  const job = await service.waitForJob(((await started.json()) as { jobId: string }).jobId, account.secretKey);
  return Buffer.from(await (await fetch(job.imageUrl)).arrayBuffer());
}

const rgbOf = async (png: Buffer) => (await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })).data;

it('edits a picked image inside the painted mask only, and compares before and after', async () => {
  const link = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/sign-in-link`);
  const page = browser.watch(await browser.context.newPage());
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(link.body.url);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${service.baseUrl}/dashboard/images`);
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByLabel('Prompt', { exact: true }).fill('a red barn');
  await page.getByLabel('Format').selectOption('png');

  const before = await original();
  const file = join(browser.profile, 'lighthouse.png');
  await sharp(before).toFile(file);
  await page.getByLabel('Image to edit').setInputFiles(file);
  const canvas = page.getByRole('application', { name: /^Mask over lighthouse\.png/ });
  await canvas.waitFor();
  await expect(page.getByLabel('Size', { exact: true }).inputValue()).resolves.toBe('512×384');
  await expect(page.getByRole('radio', { name: 'Instant' }).isDisabled()).resolves.toBe(true);

  // The painted layer's alpha at an image pixel.
  const paintedAt = (x: number, y: number) =>
    canvas.evaluate((c: HTMLCanvasElement, [px, py]) => c.getContext('2d')!.getImageData(px, py, 1, 1).data[3], [x, y]);
  // The keyboard's brush starts at the centre: Space paints there; Clear mask takes it away.
  await canvas.focus();
  await page.keyboard.press('Space');
  expect(await paintedAt(WIDTH / 2, HEIGHT / 2)).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Clear mask' }).click();
  expect(await paintedAt(WIDTH / 2, HEIGHT / 2)).toBe(0);

  // One stroke with the pointer, left to right: image x 80..300 at y 300 (the brush is 43 pixels).
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  const toPage = (x: number, y: number) => [box.x + (x / WIDTH) * box.width, box.y + (y / HEIGHT) * box.height] as const;
  await page.mouse.move(...toPage(80, 300));
  await page.mouse.down();
  await page.mouse.move(...toPage(300, 300), { steps: 8 });
  await page.mouse.up();
  expect(await paintedAt(190, 300)).toBe(255);
  expect(await paintedAt(190, 200)).toBe(0);
  await expectAccessible(page, 'playground editor');

  await page.getByRole('button', { name: 'Edit image' }).click();
  const after = page.getByRole('img', { name: 'After: a red barn' });
  await page.waitForFunction(
    () => {
      const img = document.querySelector<HTMLImageElement>('.compare-after');
      return !!img && img.complete && img.naturalWidth > 0;
    },
    null,
    { timeout: 30_000 },
  );
  await page.getByRole('img', { name: 'Before: lighthouse.png' }).waitFor();
  // The picture made above, then the edit: one generation each.
  await page.getByText('2 of 100 generations used this month').waitFor();

  const result = await rgbOf(await (await page.request.get((await after.getAttribute('src'))!)).body());
  const source = await rgbOf(before);
  expect(result.length).toBe(source.length);
  const distance = (x: number, y: number) => {
    const i = (y * WIDTH + x) * 3;
    return Math.abs(result[i] - source[i]) + Math.abs(result[i + 1] - source[i + 1]) + Math.abs(result[i + 2] - source[i + 2]);
  };
  // Inside the stroke the image has changed; away from it (above, below, beyond its ends, the corners), not a pixel has.
  const inside = [120, 190, 260].map((x) => distance(x, 300));
  expect(Math.min(...inside)).toBeGreaterThan(30);
  for (const [x, y] of [
    [5, 5],
    [190, 240],
    [190, 360],
    [30, 300],
    [360, 300],
    [506, 378],
    [256, 100],
  ])
    expect([x, y, distance(x, y)]).toEqual([x, y, 0]);

  // The comparison's edge moves by keyboard.
  const edge = page.getByRole('slider', { name: 'Compare before and after' });
  await edge.focus();
  await page.keyboard.press('Home');
  await expect(page.locator('.compare-before').evaluate((img: HTMLElement) => img.style.clipPath)).resolves.toBe('inset(0px 100% 0px 0px)');
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('.compare-before').evaluate((img: HTMLElement) => img.style.clipPath)).resolves.toBe('inset(0px 99% 0px 0px)');
  // Half and half, for the picture.
  await edge.fill('45');
  await expectAccessible(page, 'playground edit result');

  await page.evaluate(() => window.scrollTo(0, 0));
  const picture = await page.screenshot({ path: join(TEST_ARTIFACTS, 'dashboard-playground-edit.png') });
  // The docs' copy in a palette PNG: a third of the bytes, no visible difference.
  if (process.env.UPDATE_SCREENSHOTS === '1') await sharp(picture).png({ palette: true, quality: 90 }).toFile(DOCS_PICTURE);

  // Upscale 2×: a larger copy of the edit, followed to its end.
  await page.getByRole('button', { name: 'Upscale 2×' }).click();
  await page.getByRole('link', { name: 'Open the 2× copy' }).click();
  await page
    .getByText(`${WIDTH * 2}×${HEIGHT * 2}`)
    .first()
    .waitFor();

  expect(await cspViolations(page)).toEqual([]);
  expect(browser.errors).toEqual([]);
  expect(browser.foreign).toEqual([]);
});
