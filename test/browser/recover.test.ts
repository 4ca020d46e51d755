/**
 * The /recover/ page in headless Chromium (Debian's, driven by playwright-core; never a
 * downloaded browser). Without a browser the tests report themselves skipped, loudly.
 * Buyer account 8 belongs to this file.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chainTools } from '../support/chain';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser) {
  console.warn(`\n*** SKIPPED: browser tests need Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH) ***\n`);
}

const base = inject('baseUrl');
const chain = chainTools(inject('rpcUrl'));
let browser: Browser;

beforeAll(async () => {
  if (!haveBrowser) return;
  browser = await chromium.launch({
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
});
afterAll(async () => browser?.close());

describe.skipIf(!haveBrowser)('/recover/ in Chromium', () => {
  it('recovers a paid pack from the query string, verifies its seal and downloads a file', async () => {
    const tx = await chain.transfer(8, inject('usdc') as Address, inject('treasury') as Address, 99000n);
    const page = await browser.newPage({ acceptDownloads: true });
    await page.goto(`${base}/recover/?skill=csv-cleaner&txHash=${tx}`);
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    expect(await page.locator('#status').textContent()).toMatch(/Recovered CSV Cleaner/);
    expect(await page.locator('#seal').getAttribute('data-verified')).toBe('true');
    const packs = (await (await fetch(`${base}/api/packs?skill=csv-cleaner`)).json()) as { seal: { value: string } };
    expect(await page.locator('#seal').textContent()).toContain(packs.seal.value);
    expect(await page.locator('.file code').allTextContents()).toContain('SKILL.md');

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('button[data-path="SKILL.md"]').click()]);
    const saved = join(mkdtempSync(join(tmpdir(), 'dl-')), 'SKILL.md');
    await download.saveAs(saved);
    expect(readFileSync(saved, 'utf8')).toMatch(/^# CSV Cleaner/);
    await page.screenshot({ path: join(tmpdir(), 'recover-page.png'), fullPage: false });
    await page.close();
  });

  it('shows the error code and message when the transfer cannot unlock', async () => {
    const tx = await chain.transfer(8, inject('usdc') as Address, chain.address(1), 99000n);
    const page = await browser.newPage();
    await page.goto(`${base}/recover/?skill=csv-cleaner&txHash=${tx}`);
    await page.locator('#status.err').waitFor({ timeout: 15_000 });
    expect(await page.locator('#status').textContent()).toMatch(/PAYMENT_VERIFICATION_FAILED: .*another address/);
    expect(await page.locator('#result').isHidden()).toBe(true);
    await page.close();
  });
});
