/**
 * Headless Chromium for the browser tests: Debian's (never a downloaded browser), driven by
 * playwright-core. Without it the tests report themselves skipped, loudly.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

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

/**
 * Records every Content-Security-Policy violation the page reports (its `securitypolicyviolation`
 * events, which fire for whatever the policy blocked: a script, a style, an image, a fetch), as
 * "<directive> blocked <what> at <where>". Installed before the page's own scripts run, on one
 * page or on every page of a context.
 */
export async function recordCspViolations(page: Page | BrowserContext, into: string[] = []): Promise<string[]> {
  await page.exposeBinding('__reportCspViolation', (_source, text: string) => void into.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __reportCspViolation: (text: string) => void }).__reportCspViolation;
      report(`${location.pathname}: ${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  return into;
}
