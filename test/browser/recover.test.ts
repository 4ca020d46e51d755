/**
 * The /recover/ page in headless Chromium (Debian's, driven by playwright-core; never a
 * downloaded browser). Without a browser the tests report themselves skipped, loudly.
 * Buyer accounts 8, 84 and 85 belong to this file.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testAccount } from '../../local/anvil';
import { haveBrowser, launchChromium, recordCspViolations } from '../support/browser';
import { chainTools } from '../support/chain';
import { requestFrom } from '../support/source-address';
import { installTestWallet } from '../support/test-wallet';

const base = inject('baseUrl');
const chain = chainTools(inject('rpcUrl'));
let browser: Browser;

/** Content-Security-Policy violations reported by any page of this file. */
const violations: string[] = [];
/** A page in a context of its own (as browser.newPage makes), recording CSP violations. */
async function newPage() {
  const context = await browser.newContext({ acceptDownloads: true });
  await recordCspViolations(context, violations);
  return context.newPage();
}

beforeAll(async () => {
  if (haveBrowser) browser = await launchChromium();
});
afterAll(async () => browser?.close());

describe.skipIf(!haveBrowser)('/recover/ in Chromium', () => {
  it('recovers a paid pack from the query string, verifies its seal and downloads a file', async () => {
    const tx = await chain.transfer(8, inject('usdc') as Address, inject('treasury') as Address, 99000n);
    const page = await newPage();
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
    expect(readFileSync(saved, 'utf8')).toMatch(/^---\nname: csv-cleaner\n[^]*?\n---\n\n# CSV Cleaner/);
    await page.screenshot({ path: join(tmpdir(), 'recover-page.png'), fullPage: false });
    await page.close();
  });

  it('shows the error code and message when the transfer cannot unlock', async () => {
    const tx = await chain.transfer(8, inject('usdc') as Address, chain.address(1), 99000n);
    const page = await newPage();
    await page.goto(`${base}/recover/?skill=csv-cleaner&txHash=${tx}`);
    await page.locator('#status.err').waitFor({ timeout: 15_000 });
    expect(await page.locator('#status').textContent()).toMatch(/PAYMENT_VERIFICATION_FAILED: .*another address/);
    expect(await page.locator('#result').isHidden()).toBe(true);
    await page.close();
  });

  it('a pack already delivered elsewhere is refused, then recovered by signing with the wallet that paid', async () => {
    const payer = testAccount(8);
    // The skill's exact price: more, unsigned, is no pack (issue 50, I5).
    const tx = await chain.transfer(8, inject('usdc') as Address, inject('treasury') as Address, 50000n);
    // Delivered first to another address: the browser is not that caller.
    const first = await requestFrom('127.0.0.2', `${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: tx, skill: 'docs-link-and-anchor-audit' }) },
    });
    expect(first.status).toBe(200);

    const page = await newPage();
    // A stand-in for a browser wallet (EIP-1193): account 8 signs in node; the page only sees window.ethereum.
    await page.exposeFunction('testWalletSign', (hex: string) => payer.signMessage({ message: { raw: hex as `0x${string}` } }));
    await page.addInitScript((address: string) => {
      (window as unknown as { ethereum: unknown }).ethereum = {
        request: async ({ method, params }: { method: string; params?: unknown[] }) => {
          if (method === 'eth_requestAccounts') return [address.toLowerCase()];
          if (method === 'personal_sign')
            return (window as unknown as { testWalletSign: (h: unknown) => Promise<string> }).testWalletSign(params![0]);
          throw new Error(`unsupported ${method}`);
        },
      };
    }, payer.address);
    await page.goto(`${base}/recover/?skill=docs-link-and-anchor-audit&txHash=${tx}`);
    await page.locator('#status.err').waitFor({ timeout: 15_000 });
    expect(await page.locator('#status').textContent()).toMatch(/BUYER_PROOF_REQUIRED/);
    expect(await page.locator('#status').textContent()).not.toMatch(/docs-link-and-anchor-audit/);

    await page.locator('#sign').click();
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    expect(await page.locator('#seal').getAttribute('data-verified')).toBe('true');
    expect(await page.locator('#summary').textContent()).toContain(payer.address);
    await page.close();
  });

  it('with two wallets announced (EIP-6963), the person picks the one that paid and signs with it alone', async () => {
    const usdc = inject('usdc') as Address;
    const payer = testAccount(84);
    await chain.setTokenBalance(usdc, payer.address, 10n ** 9n);
    await chain.setEthBalance(payer.address, 10n ** 18n);
    const challenge = (await (await fetch(`${base}/api/pay?skill=dbt-test-coverage`)).json()) as {
      maxAmountRequired: string;
      payTo: Address;
    };
    const tx = await chain.transfer(84, usdc, challenge.payTo, BigInt(challenge.maxAmountRequired));
    const first = await requestFrom('127.0.0.2', `${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: tx, skill: 'dbt-test-coverage' }) },
    });
    expect(first.status).toBe(200);

    const page = await newPage();
    const rpcUrl = inject('rpcUrl');
    const other = await installTestWallet(page, { rpcUrl, account: 85, announce: { name: 'Alpha Wallet', rdns: 'org.example.alpha' } });
    const paying = await installTestWallet(page, {
      rpcUrl,
      account: 84,
      announce: { name: 'Beta Wallet', rdns: 'org.example.beta' },
      injectWindowEthereum: false,
    });
    await page.goto(`${base}/recover/?skill=dbt-test-coverage&txHash=${tx}`);
    await page.locator('#status.err', { hasText: 'BUYER_PROOF_REQUIRED' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('#wallets legend').textContent()).toBe('Choose the wallet that paid');
    expect(await page.locator('#wallets label.wallet').allTextContents()).toEqual(['Alpha Wallet', 'Beta Wallet']);
    await page.getByLabel('Beta Wallet').check();
    await page.locator('#sign').click();
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    expect(await page.locator('#summary').textContent()).toContain(payer.address);
    expect(paying.calls).toEqual(['eth_requestAccounts', 'personal_sign']);
    expect(other.calls).toEqual([]);
    await page.close();
  });

  it('no page reported a Content-Security-Policy violation', () => {
    expect(violations).toEqual([]);
  });
});
