/**
 * Headless Chromium for the browser tests: Debian's (never a downloaded browser), driven by
 * playwright-core. Without it the tests report themselves skipped, loudly.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_HINT, haveBrowser } from './chromium';

export { haveBrowser };
if (!haveBrowser) {
  console.warn(`\n*** SKIPPED: browser tests need Chromium at ${CHROMIUM} (${CHROMIUM_HINT}) ***\n`);
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

/** The phone the browser tests use: an iPhone 12 to 15's viewport in CSS pixels. */
export const PHONE = { width: 390, height: 844 } as const;

export interface PhoneLayout {
  /** The document's scroll width: more than the viewport's 390 px means the page scrolls sideways. */
  scrollWidth: number;
  /** Each button asked about that is hidden, or shorter than a 44 px touch target (WCAG 2.5.5, Apple's HIG), with its height. */
  tooSmall: string[];
  /** The innermost elements that reach past the viewport's right edge (what makes the page scroll sideways), as tag#id.class. */
  overflowing: string[];
}

/**
 * How a page lays out at phone width: its scroll width and the buttons (CSS selectors, each
 * matching one or more) that are not visible or not 44 px tall; saves a full-page screenshot
 * at `shot` on the way, for a person to look at.
 */
export async function phoneLayout(page: Page, buttons: string[], shot: string): Promise<PhoneLayout> {
  const tooSmall: string[] = [];
  for (const selector of buttons) {
    const all = await page.locator(selector).all();
    if (all.length === 0) tooSmall.push(`${selector}: none on the page`);
    for (const button of all) {
      const box = (await button.isVisible()) ? await button.boundingBox() : null;
      if (!box || box.height < 44) tooSmall.push(`${selector}: ${box ? `${box.height}px tall` : 'not visible'}`);
    }
  }
  await page.screenshot({ path: shot, fullPage: true });
  const overflowing = await page.evaluate(() => {
    const wide = Array.from(document.body.querySelectorAll('*')).filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5);
    // Innermost only: a parent is wide because of its child.
    return wide
      .filter((e) => !wide.some((other) => other !== e && e.contains(other)))
      .map(
        (e) =>
          `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${Array.from(e.classList)
            .map((c) => `.${c}`)
            .join('')}`,
      );
  });
  return { scrollWidth: await page.evaluate(() => document.documentElement.scrollWidth), tooSmall, overflowing };
}
