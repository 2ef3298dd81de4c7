/**
 * Debian's Chromium for the browser tests (playwright-core drives it; nothing downloads a browser
 * on these machines): its path, the flags every test launches it with, and where tests leave
 * screenshots for a reader.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** <repository>/test-artifacts: screenshots and files the browser tests leave behind. */
export const TEST_ARTIFACTS = resolve(__dirname, '../../../test-artifacts');

/** Browser tests fail loudly without Chromium; they never skip. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is required at ${CHROMIUM} for the browser tests; run bash scripts/ensure-test-services.sh (installs Debian's chromium).`);
}

/** Options for playwright-core's `chromium.launchPersistentContext` on Debian's Chromium. */
export const chromiumOptions = (viewport: { width: number; height: number }) => ({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport });
