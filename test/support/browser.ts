/**
 * Headless Chromium for the browser tests: Debian's (never a downloaded browser), driven by
 * playwright-core. Without it the tests report themselves skipped, loudly.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser) {
  console.warn(`\n*** SKIPPED: browser tests need Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH) ***\n`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // The machine's network is closed: keep Chromium from calling home at start.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
