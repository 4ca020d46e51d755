/**
 * /purchases/ in headless Chromium (Debian's, driven by playwright-core): a wallet that bought one
 * pack by transfer (tx hash) and one by x402 v2 signs in once and sees both, downloads each; a card
 * buyer pastes the license the success page gave and sees their purchase. Buyer account 90
 * belongs to this file.
 */
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import type { Browser } from 'playwright-core';
import { erc20Abi, type Address } from 'viem';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testAccount } from '../../local/anvil';
import { haveBrowser, launchChromium, PHONE, phoneLayout, recordCspViolations } from '../support/browser';
import { chainTools } from '../support/chain';
import { installTestWallet } from '../support/test-wallet';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const usdc = inject('usdc') as Address;
const chain = chainTools(rpcUrl);
const ACCOUNT = 90;
const PHONE_SHOTS = fileURLToPath(new URL('../../test-results/phone-390/', import.meta.url));
const usdcOf = (who: Address) => chain.pub.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
let browser: Browser;

/** Content-Security-Policy violations and page errors of any page of this file. */
const violations: string[] = [];
const problems: string[] = [];
async function newPage(viewport?: { width: number; height: number }) {
  const context = await browser.newContext({ acceptDownloads: true, ...(viewport ? { viewport } : {}) });
  await recordCspViolations(context, violations);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  return page;
}

beforeAll(async () => {
  if (haveBrowser) browser = await launchChromium();
});
afterAll(async () => browser?.close());

describe.skipIf(!haveBrowser)('/purchases/ in Chromium', () => {
  it('a wallet signs in once and sees what it bought by tx hash and by x402 v2; each pack downloads again for free', async () => {
    const { address } = testAccount(ACCOUNT);
    await chain.setTokenBalance(usdc, address, 10n ** 9n);
    await chain.setEthBalance(address, 10n ** 18n);
    // Bought by transfer and tx hash (the agent way) ...
    const byTx = 'agent-trajectory-critic';
    const challenge = (await (await fetch(`${base}/api/pay?skill=${byTx}`)).json()) as { maxAmountRequired: string; payTo: Address };
    const tx = await chain.transfer(ACCOUNT, usdc, challenge.payTo, BigInt(challenge.maxAmountRequired));
    const bought = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: tx, skill: byTx }) },
    });
    expect(bought.status).toBe(200);
    // ... and by a stock x402 v2 client.
    const byV2 = 'esp-outcome-judge';
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: testAccount(ACCOUNT) });
    const v2 = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${byV2}`);
    expect(v2.status).toBe(200);
    const balance = await usdcOf(address);

    // At phone width: the list is what a person mostly opens on a phone.
    const page = await newPage(PHONE);
    const wallet = await installTestWallet(page, { rpcUrl, account: ACCOUNT });
    await page.goto(`${base}/purchases/`);
    await page.waitForSelector('html[data-ready="true"]');
    await page.locator('#sign-in').click();
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    expect(await page.locator('#status').textContent()).toMatch(/2 purchases shown/);
    expect(await page.locator('#list h2 a').allTextContents()).toHaveLength(2);
    const skills = await page.locator('#list button[data-skill]').evaluateAll((bs) => bs.map((b) => (b as HTMLElement).dataset['skill']));
    expect(skills).toEqual([byV2, byTx]);
    expect(wallet.calls).toContain('personal_sign');
    const layout = await phoneLayout(
      page,
      ['#sign-in', '#list button[data-skill]', '#list button.secondary'],
      join(PHONE_SHOTS, 'purchases.png'),
    );
    expect(layout.overflowing).toEqual([]);
    expect(layout.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expect(layout.tooSmall).toEqual([]);

    // "Save the receipt" saves the sale's receipt, which verifies against the published key.
    const [saved] = await Promise.all([page.waitForEvent('download'), page.locator('#list button.secondary').first().click()]);
    const receipt = (await (await saved.createReadStream()).toArray()).join('');
    const keys = createLocalJWKSet((await (await fetch(`${base}/.well-known/jwks.json`)).json()) as never);
    const { payload } = await compactVerify(receipt, keys, { algorithms: ['ES256'] });
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ sub: byV2, payer: address });

    await page.locator(`#list button[data-skill="${byTx}"]`).click();
    await page.locator('#seal[data-verified="true"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('.file code').allTextContents()).toContain('SKILL.md');
    // Signing in and downloading moved nothing.
    expect(wallet.sent).toHaveLength(0);
    expect(await usdcOf(address)).toBe(balance);
    await page.close();
  });

  it('a card buyer pastes the license from the success page and sees the purchase', async () => {
    const created = await fetch(`${base}/api/acp/checkout_sessions`, {
      method: 'POST',
      body: JSON.stringify({ line_items: [{ id: 'csv-cleaner', quantity: 1 }] }),
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { continue_url: string };
    const page = await newPage();
    await page.goto(session.continue_url);
    await page.locator('#pay').click();
    await page.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    const token = await page.locator('#license').inputValue();

    await page.goto(`${base}/purchases/`);
    await page.waitForSelector('html[data-ready="true"]');
    await page.locator('#license-input').fill(token);
    await page.locator('#license-form button[type="submit"]').click();
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    expect(await page.locator('#list').textContent()).toMatch(/Paid by card · \$10\.00/);
    await page.locator('#list button[data-skill="csv-cleaner"]').click();
    await page.locator('#seal[data-verified="true"]').waitFor({ timeout: 15_000 });
    await page.close();
  });

  it('the pages raised no error and no CSP violation', () => {
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
  });
});
