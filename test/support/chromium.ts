/**
 * Where the browser tests find Chromium (Debian's, never a downloaded browser), and the one line a
 * run without it starts with (test/support/global-setup.ts), so the skip is said before the tests
 * run and not only inside the browser test files' output.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const haveBrowser = existsSync(CHROMIUM);

/** How to get the browser tests run: what .ci/run does (Debian's package), or a Chromium of your own. */
export const CHROMIUM_HINT = 'apt-get install chromium, as .ci/run does, or set CHROMIUM_PATH to a Chromium binary';

/** Said once at the start of a run on a machine without Chromium; undefined when it is there. */
export const missingBrowserLine = (): string | undefined =>
  haveBrowser ? undefined : `*** The browser tests (test/browser/) will be skipped: no Chromium at ${CHROMIUM} (${CHROMIUM_HINT}). ***`;
