/**
 * The playground in Chromium with a backend that reports progress (the ComfyUI protocol fake): the
 * job's `progress` events show as a progress bar with the backend's message, then the image.
 */
import { join } from 'node:path';
import { startFakeComfyUI, type FakeComfyUIServer } from '@promptpix/testing/fake-providers';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { launchDashboardBrowser, type DashboardBrowser } from './testing/browser-harness';

jest.setTimeout(120_000);

let comfy: FakeComfyUIServer;
let service: TestService;
let browser: DashboardBrowser;
let account: TestAccount;

beforeAll(async () => {
  comfy = await startFakeComfyUI();
  // Four seconds of sampling: long enough for the stream to show several steps.
  comfy.setBehaviour({ steps: 40, stepMs: 100 });
  service = await startTestService('embedded', {
    MODEL_PROVIDER: 'comfyui',
    COMFYUI_BASE_URL: comfy.url,
    COMFYUI_WORKFLOW: join(__dirname, '../../../../docs/backends/comfyui-workflow.json'),
  });
  account = await service.createAccount();
  browser = await launchDashboardBrowser(service.baseUrl);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await comfy?.stop();
});

it("shows the backend's progress while the image is made", async () => {
  const link = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/sign-in-link`);
  const page = browser.watch(await browser.context.newPage());
  await page.goto(link.body.url);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${service.baseUrl}/dashboard/images`);
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByLabel('Prompt', { exact: true }).fill('a lighthouse on a cliff at sunset');
  await page.getByRole('button', { name: 'Generate', exact: true }).click();

  const bar = page.getByRole('progressbar', { name: 'Generation progress' });
  await bar.waitFor({ timeout: 30_000 });
  await page.getByText(/KSampler: step \d+\/40/).waitFor();
  const value = Number(await bar.getAttribute('value'));
  expect(value).toBeGreaterThan(0);
  expect(value).toBeLessThanOrEqual(1);

  await page.waitForFunction(
    () => {
      const img = document.querySelector<HTMLImageElement>('.playground-image img');
      return !!img && img.complete && img.naturalWidth > 0;
    },
    null,
    { timeout: 30_000 },
  );
  await expect(bar.count()).resolves.toBe(0);
});
