/**
 * The storefront in headless Chromium (Debian's, driven by playwright-core): a person finds a
 * skill, reads its sample, buys it with a browser wallet (test/support/test-wallet.ts: an
 * EIP-1193 provider backed by an anvil account) and sees the purchase on the ledger page; the
 * card button reaches a checkout; the failures a buyer can meet read as plain sentences. The test
 * wallet announces itself by EIP-6963, as real wallets do; a page with two lets the person choose.
 * Screenshots of the home, a skill page and the ledger land in test-results/storefront/; the home
 * page, a skill page and a purchase at phone width (390 px) in test-results/phone-390/.
 * Buyer accounts 70 to 83, 182 and 183 belong to this file.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { erc20Abi, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { testAccount } from '../../local/anvil';
import { AUTH_CAPTURE_ESCROW_ABI, LOCAL_AUTH_CAPTURE_ESCROW } from '../../local/escrow';
import { haveBrowser, launchChromium, PHONE, phoneLayout, recordCspViolations } from '../support/browser';
import { chainTools } from '../support/chain';
import { installTestWallet, type TestWalletOptions } from '../support/test-wallet';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const usdc = inject('usdc') as Address;
const chain = chainTools(rpcUrl);
const SHOTS = fileURLToPath(new URL('../../test-results/storefront/', import.meta.url));
const PHONE_SHOTS = fileURLToPath(new URL('../../test-results/phone-390/', import.meta.url));
let browser: Browser;

/** Console errors and uncaught exceptions of every page this file opens. */
const problems: string[] = [];
/** Every Content-Security-Policy violation a page of this file reported: the pages must work under their CSP. */
const violations: string[] = [];
/** Chromium logs every non-2xx fetch as a console error; the 402 of the challenge read is the protocol, not a fault. */
const EXPECTED = /status of 402 \(Payment Required\)/;

beforeAll(async () => {
  if (!haveBrowser) return;
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
  mkdirSync(PHONE_SHOTS, { recursive: true });
});
afterAll(async () => browser?.close());

type WalletSpec = Omit<TestWalletOptions, 'rpcUrl'>;

/** Opens `path` once its script is ready, with the given test wallets installed (each announces itself unless told not to). */
async function open(path: string, wallet?: WalletSpec | WalletSpec[], viewport = { width: 1200, height: 900 }, allowed: RegExp = EXPECTED) {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  page.on('console', (m) => {
    // Only the shop's pages count (the card test ends on the Stripe stand-in's page).
    if (m.type() === 'error' && m.location().url.startsWith(base) && !allowed.test(m.text())) problems.push(`${path}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${path}: ${e.message}`));
  await recordCspViolations(page, violations);
  const wallets = [];
  for (const w of wallet === undefined ? [] : Array.isArray(wallet) ? wallet : [wallet])
    wallets.push(await installTestWallet(page, { rpcUrl, ...w }));
  await page.goto(`${base}${path}`);
  await page.waitForSelector('html[data-ready="true"]');
  return { page, wallet: wallets[0], wallets };
}

/** The sentences of a message a person reads (a full stop, then a space and a capital, ends one). */
const sentences = (text: string | null): string[] => (text ?? '').trim().split(/(?<=[.!?…])\s+(?=[A-Z])/);

/** A skill bought earlier by `account` with a plain transfer and POST /api/pay, as an agent buys. */
async function boughtEarlier(account: number, skill: string): Promise<void> {
  await buyer(account);
  const challenge = (await (await fetch(`${base}/api/pay?skill=${skill}`)).json()) as { maxAmountRequired: string; payTo: Address };
  const tx = await chain.transfer(account, usdc, challenge.payTo, BigInt(challenge.maxAmountRequired));
  const bought = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-payment': JSON.stringify({ txHash: tx, skill }) } });
  expect(bought.status).toBe(200);
}

/** A buyer that holds USDC and ETH for gas and nothing else touches. */
async function buyer(index: number, usdcAtomic = 10n ** 9n): Promise<Address> {
  const { address } = testAccount(index);
  await chain.setTokenBalance(usdc, address, usdcAtomic);
  await chain.setEthBalance(address, 10n ** 18n);
  return address;
}

const visibleIds = (page: Page) =>
  page.locator('#skills > li:not([hidden])').evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset['id']));

describe.skipIf(!haveBrowser)('the storefront in Chromium', () => {
  it('search finds a skill, in the same order /api/catalog answers an agent', async () => {
    const { page } = await open('/');
    expect(await page.title()).toMatch(/Agent Skill Marketplace/);
    expect(await page.locator('meta[name="description"]').getAttribute('content')).toMatch(/250 sealed capability packs/);
    expect(await visibleIds(page)).toHaveLength(250);
    await page.screenshot({ path: join(SHOTS, 'home.png') });

    await page.locator('#q').fill('clean a csv');
    await page.waitForFunction(
      () => document.getElementById('count')?.textContent?.match(/^\d+ skills?/) && location.search.includes('q='),
    );
    const agent = (await (await fetch(`${base}/api/catalog?q=clean%20a%20csv&limit=100`)).json()) as {
      total: number;
      results: { id: string }[];
    };
    expect(await visibleIds(page)).toEqual(agent.results.map((r) => r.id));
    expect(agent.results[0]!.id).toBe('csv-cleaner');
    expect(await page.locator('#count').textContent()).toContain(String(agent.total));

    // Filters are the API's too; the URL keeps them, so the view can be shared.
    await page.locator('#category').selectOption('data');
    await page.waitForFunction(() => location.search.includes('category=data'));
    await page.waitForFunction(() => !document.getElementById('count')?.textContent?.startsWith('Searching'));
    const filtered = (await (await fetch(`${base}/api/catalog?q=clean%20a%20csv&category=data&limit=100`)).json()) as {
      results: { id: string }[];
    };
    expect(await visibleIds(page)).toEqual(filtered.results.map((r) => r.id));
    await page.goto(`${base}/?max_price=0.05`);
    await page.waitForFunction(() => /^\d+ skills?/.test(document.getElementById('count')?.textContent ?? ''));
    const cheap = (await (await fetch(`${base}/api/catalog?max_price=0.05&limit=100`)).json()) as { results: { id: string }[] };
    expect(await visibleIds(page)).toEqual(cheap.results.map((r) => r.id));
    await page.close();
  });

  it('a skill page shows its sample, pack seal and live trust facts, and explains what is needed without a wallet', async () => {
    const { page } = await open('/skills/csv-cleaner/');
    expect(await page.title()).toBe('CSV Cleaner: $0.099 skill pack · Agent Skill Marketplace');
    expect(await page.locator('h1').textContent()).toBe('CSV Cleaner');
    expect(await page.locator('article.sample h5').first().textContent()).toBe('1. Detect encoding and delimiter');
    expect(await page.locator('article.sample').textContent()).toContain('Free sample: the opening of SKILL.md');
    expect(await page.locator('article.sample').innerHTML()).not.toContain('<!--');
    const packs = (await (await fetch(`${base}/api/packs?skill=csv-cleaner`)).json()) as { seal: { value: string } };
    expect(await page.locator('#pack-seal').textContent()).toBe(packs.seal.value);
    await page.waitForFunction(() => /^\d+$/.test(document.getElementById('unlocks')?.textContent ?? ''));
    expect(await page.locator('#age').textContent()).toMatch(/^\d+ days?$/);
    // What a person without a wallet can do, in one sentence: a browser wallet, or a card where offered; a shopper gets no command line.
    const note = await page.locator('#wallet-note').textContent();
    expect(note).toMatch(/^No browser wallet was found: open this page in a browser with a wallet that holds USDC on Base/);
    expect(note).toMatch(/, or pay by card if this pack offers it\.$/);
    expect(note).not.toMatch(/npm|terminal|command line/);
    expect(sentences(note)).toHaveLength(1);
    expect(await page.locator('#wallets').count()).toBe(0);
    await page.locator('#pay-wallet').click();
    expect(await page.locator('#status.err').textContent()).toBe(note);
    await page.screenshot({ path: join(SHOTS, 'skill.png'), fullPage: true });
    await page.close();
  });

  // A whole purchase and more pages: longer than most, on two shared cores.
  it(
    'pays with a browser wallet: adds Base, sends the exact amount, shows the files and license, and the row is on the ledger page',
    { timeout: 60_000 },
    async () => {
      const skill = 'agent-hot-wallet-provisioning';
      const payer = await buyer(70);
      const { page, wallet } = await open(`/skills/${skill}/`, { account: 70 });
      expect(await page.locator('#wallet-note').textContent()).toBe('');
      // Found by EIP-6963: its name and icon, the one choice.
      expect(await page.locator('#wallets legend').textContent()).toBe('Your wallet');
      expect(await page.locator('#wallets label.wallet').allTextContents()).toEqual(['Test Wallet']);
      expect(await page.locator('#wallets label.wallet img').getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
      await page.locator('#pay-wallet').click();
      await page.locator('#status.ok').waitFor({ timeout: 30_000 });
      expect(await page.locator('#steps li.done').allTextContents()).toEqual(['Sent', 'Included', 'Confirmed', 'Unlocked']);
      expect(await page.locator('#seal').getAttribute('data-verified')).toBe('true');
      expect(await page.locator('.file code').allTextContents()).toContain('SKILL.md');
      expect(await page.locator('#license').inputValue()).toMatch(/^eyJ/);

      // The wallet was on Ethereum and did not know Base: the page added it, switched, sent one transfer, and signed.
      expect(wallet!.added).toEqual([expect.objectContaining({ chainId: '0x2105' })]);
      expect(wallet!.sent).toHaveLength(1);
      expect(wallet!.calls).toContain('personal_sign');
      const tx = wallet!.sent[0]!;
      const challenge = (await (await fetch(`${base}/api/pay?skill=${skill}`)).json()) as { maxAmountRequired: string; payTo: string };
      const paid = await chain.transferOf(tx);
      expect(paid).toEqual({ from: payer, to: challenge.payTo, value: BigInt(challenge.maxAmountRequired), token: usdc });

      // A download of one file, and one zip of all.
      const [file] = await Promise.all([page.waitForEvent('download'), page.locator('button[data-path="SKILL.md"]').click()]);
      expect(file.suggestedFilename()).toBe('SKILL.md');
      const [zip] = await Promise.all([page.waitForEvent('download'), page.locator('#download-zip').click()]);
      expect(zip.suggestedFilename()).toBe(`${skill}.zip`);
      await page.close();

      // The counts are folded from the ledger's stream, moments after the unlock: the page is opened once they have it.
      await vi.waitFor(
        async () => expect(((await (await fetch(`${base}/api/proof?skill=${skill}`)).json()) as { confirmed: number }).confirmed).toBe(1),
        { timeout: 10_000, interval: 100 },
      );
      const ledger = await open(`/proof/?skill=${skill}`);
      await ledger.page.locator(`#rows tr[data-tx="${tx}"]`).waitFor({ timeout: 10_000 });
      expect(await ledger.page.locator('#confirmed').textContent()).toBe('1');
      // The charts come from /api/revenue, fetched beside the rows and often answered after them (CI
      // once counted the bars before they were drawn): wait for them.
      await ledger.page.locator('#window', { hasText: ': 1 unlock, $' }).waitFor({ timeout: 10_000 });
      expect(await ledger.page.locator('svg.chart rect > title', { hasText: /: 1 unlock$/ }).count()).toBe(1);
      // The local chain has no explorer: the ledger says so and links nowhere.
      expect(((await (await fetch(`${base}/api/proof?limit=1`)).json()) as { explorer_url: unknown }).explorer_url).toBeNull();
      expect(await ledger.page.locator('#explorer-note').textContent()).toMatch(/names no block explorer/);
      expect(await ledger.page.locator(`#rows a[href*="${tx}"]`).count()).toBe(0);
      await ledger.page.close();

      // A deployment that names one (Basescan, in AWS by default): each row links its transaction and payer there.
      const linked = await browser.newPage();
      await linked.route('**/api/proof?*', async (route) => {
        const res = await route.fetch();
        await route.fulfill({ response: res, json: { ...(await res.json()), explorer_url: 'https://basescan.org' } });
      });
      await linked.goto(`${base}/proof/?skill=${skill}`);
      await linked.locator(`#rows a[href="https://basescan.org/tx/${tx}"]`).waitFor({ timeout: 10_000 });
      expect(await linked.locator(`#rows a[href="https://basescan.org/address/${payer}"]`).count()).toBe(1);
      await linked.close();
      const all = await open('/proof/');
      await all.page.locator(`#rows tr[data-tx="${tx}"]`).waitFor({ timeout: 10_000 });
      await all.page.screenshot({ path: join(SHOTS, 'proof.png'), fullPage: true });
      await all.page.close();
    },
  );

  it('an owner is never charged again: "Pay with wallet" finds the skill is its own, signs in, and downloads it with no transaction', async () => {
    const skill = 'agent-plan-critic';
    // Bought earlier by transfer (the agent way), from the same wallet.
    await boughtEarlier(78, skill);

    // The wallet is found by EIP-6963 (it announces itself).
    const { page, wallet } = await open(`/skills/${skill}/`, { account: 78 });
    // A wallet the site is connected to is recognised on load: the button offers a download.
    await page.locator('#pay-wallet', { hasText: 'Download (you own this)' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('#wallet-note').textContent()).toMatch(/already has this skill: downloading it again costs nothing/);
    await page.locator('#pay-wallet').click();
    await page.locator('#status.ok').waitFor({ timeout: 30_000 });
    expect(await page.locator('#status').textContent()).toMatch(/You already own .*nothing paid/);
    expect(wallet!.sent).toHaveLength(0);
    expect(wallet!.calls).toContain('personal_sign');
    expect(await page.locator('#seal').getAttribute('data-verified')).toBe('true');
    expect(await page.locator('.file code').allTextContents()).toContain('SKILL.md');
    await page.close();
  });

  it("an owner's wallet that only injects window.ethereum is still found; declining the sign-in is one sentence", async () => {
    const skill = 'schema-drift-detection';
    await boughtEarlier(83, skill);
    // A wallet that does not announce itself (only window.ethereum) is still found, with no list to choose from.
    const legacy = await open(`/skills/${skill}/`, { account: 83, announce: false });
    await legacy.page.locator('#pay-wallet', { hasText: 'Download (you own this)' }).waitFor({ timeout: 10_000 });
    expect(await legacy.page.locator('#wallets').count()).toBe(0);
    await legacy.page.close();

    // Declining the sign-in is one sentence that says what to do; nothing is sent.
    const refused = await open(`/skills/${skill}/`, { account: 83, decline: ['personal_sign'] });
    await refused.page.locator('#pay-wallet', { hasText: 'Download (you own this)' }).waitFor({ timeout: 10_000 });
    await refused.page.locator('#pay-wallet').click();
    await refused.page.locator('#status.err').waitFor({ timeout: 15_000 });
    const said = await refused.page.locator('#status').textContent();
    expect(said).toBe(
      'You declined the sign-in in your wallet, so nothing was downloaded and nothing paid: press the button again and sign ' +
        'the message (it moves no funds) to download the pack.',
    );
    expect(sentences(said)).toHaveLength(1);
    expect(refused.wallet!.sent).toEqual([]);
    await refused.page.close();
  });

  // A whole purchase and more pages: longer than most, on two shared cores.
  it(
    'two wallets announce themselves: the person picks the second, and the owner check and the purchase go through it',
    { timeout: 60_000 },
    async () => {
      const skill = 'payto-address-guard';
      // The first wallet (also window.ethereum) already owns the skill; the second is a new buyer that only announces.
      await boughtEarlier(79, skill);
      const payer = await buyer(80);
      const {
        page,
        wallets: [first, second],
      } = await open(`/skills/${skill}/`, [
        { account: 79, announce: { name: 'Alpha Wallet', rdns: 'org.example.alpha' } },
        { account: 80, announce: { name: 'Beta Wallet', rdns: 'org.example.beta' }, injectWindowEthereum: false },
      ]);
      expect(await page.locator('#wallets legend').textContent()).toBe('Choose the wallet that pays');
      expect(await page.locator('#wallets label.wallet').allTextContents()).toEqual(['Alpha Wallet', 'Beta Wallet']);
      expect(await page.locator('#wallets img').count()).toBe(2);
      expect(await page.getByLabel('Alpha Wallet').isChecked()).toBe(true);
      // The first is chosen at first, and it owns the skill.
      await page.locator('#pay-wallet', { hasText: 'Download (you own this)' }).waitFor({ timeout: 10_000 });

      await page.getByLabel('Beta Wallet').check();
      await page.locator('#pay-wallet', { hasText: /^Pay with wallet$/ }).waitFor({ timeout: 10_000 });
      expect(await page.locator('#wallet-note').textContent()).toBe('');
      await page.locator('#pay-wallet').click();
      await page.locator('#status.ok').waitFor({ timeout: 30_000 });
      expect(await page.locator('#status').textContent()).toMatch(/^Unlocked /);

      // The second wallet connected, switched, paid and signed; the first was only asked which account it has.
      expect(second!.sent).toHaveLength(1);
      expect(second!.calls).toEqual(expect.arrayContaining(['eth_requestAccounts', 'wallet_switchEthereumChain', 'personal_sign']));
      expect(first!.calls).toEqual(['eth_accounts']);
      expect(first!.sent).toEqual([]);
      const challenge = (await (await fetch(`${base}/api/pay?skill=${skill}`)).json()) as { maxAmountRequired: string; payTo: string };
      expect(await chain.transferOf(second!.sent[0]!)).toEqual({
        from: payer,
        to: challenge.payTo,
        value: BigInt(challenge.maxAmountRequired),
        token: usdc,
      });
      await page.close();
    },
  );

  it('a wallet on another network is asked to switch to Base; one that refuses is told so in one sentence, and nothing is sent', async () => {
    await buyer(81);
    const { page, wallet } = await open('/skills/csv-cleaner/', { account: 81, decline: ['wallet_switchEthereumChain'] });
    await page.locator('#pay-wallet').click();
    await page.locator('#status.err').waitFor({ timeout: 15_000 });
    const said = await page.locator('#status').textContent();
    expect(said).toBe(
      'Your wallet refused to switch to the Base network, the only one this shop takes USDC on, so nothing was sent: ' +
        'allow the switch or switch it to Base yourself, then press "Pay with wallet" again.',
    );
    expect(sentences(said)).toHaveLength(1);
    // Asked with wallet_switchEthereumChain (for chain 0x2105), after connecting; no transaction, no signature.
    expect(wallet!.calls.slice(0, 3)).toEqual(['eth_accounts', 'eth_requestAccounts', 'eth_chainId']);
    expect(wallet!.calls).toContain('wallet_switchEthereumChain');
    expect(wallet!.calls).not.toContain('personal_sign');
    expect(wallet!.sent).toEqual([]);
    await page.close();
  });

  it('a buyer who paid but got nothing lands on /recover/ with the fields filled, and recovers the pack there', async () => {
    const skill = 'agent-monthly-spend-reconciliation';
    await buyer(71);
    const { page, wallet } = await open(`/skills/${skill}/`, { account: 71 }, undefined, /status of (402|503) /);
    // The unlock fails after the transfer (the shop is down for POST /api/pay); the transfer is on chain.
    await page.route('**/api/pay', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ ok: false, error: 'internal_error', error_code: 'INTERNAL_ERROR', message: 'Down.', retry: false }),
          })
        : route.continue(),
    );
    await page.locator('#pay-wallet').click();
    await page.waitForURL(/\/recover\/\?/, { timeout: 30_000 });
    const url = new URL(page.url());
    expect(url.searchParams.get('skill')).toBe(skill);
    expect(url.searchParams.get('txHash')).toBe(wallet!.sent[0]);
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    expect(await page.locator('#seal').getAttribute('data-verified')).toBe('true');
    await page.close();
  });

  it('verification pending: waits for confirmations with visible progress, then unlocks', async () => {
    const skill = 'agent-trajectory-critic';
    await buyer(76);
    const { page } = await open(`/skills/${skill}/`, { account: 76 });
    // The first claim meets a transfer without enough confirmations yet (as on Base within a block); the next one succeeds.
    let pending = 1;
    await page.route('**/api/pay', (route) =>
      route.request().method() === 'POST' && pending-- > 0
        ? route.fulfill({
            status: 402,
            contentType: 'application/json',
            body: JSON.stringify({
              ok: false,
              error: 'payment_verification_failed',
              error_code: 'PAYMENT_VERIFICATION_FAILED',
              message: 'The transfer has 1 of 2 confirmations.',
              retry: true,
            }),
          })
        : route.continue(),
    );
    await page.locator('#pay-wallet').click();
    await page
      .locator('#status.busy', { hasText: 'Waiting for confirmations on Base: The transfer has 1 of 2 confirmations.' })
      .waitFor({ timeout: 15_000 });
    expect(await page.locator('#steps li.now').textContent()).toBe('Confirmed');
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(SHOTS, 'skill-bought.png'), fullPage: true });
    await page.close();
  });

  it('says in one sentence what went wrong and what to do: declined in the wallet, not enough USDC, a wallet that will not add Base', async () => {
    await buyer(72);
    const declined = await open('/skills/csv-cleaner/', { account: 72, decline: ['eth_sendTransaction'] });
    await declined.page.locator('#pay-wallet').click();
    await declined.page.locator('#status.err').waitFor({ timeout: 15_000 });
    expect(await declined.page.locator('#status').textContent()).toBe(
      'You declined the transfer in your wallet, so nothing was sent: press "Pay with wallet" again when you are ready.',
    );
    expect(declined.wallet!.sent).toEqual([]);
    await declined.page.close();

    await buyer(73, 1000n);
    const poor = await open('/skills/csv-cleaner/', { account: 73 });
    await poor.page.locator('#pay-wallet').click();
    await poor.page.locator('#status.err').waitFor({ timeout: 15_000 });
    const poorly = await poor.page.locator('#status').textContent();
    expect(poorly).toMatch(
      /^This skill costs 0\.099 USDC and your wallet 0x[0-9a-fA-F]{40} holds 0\.001 USDC on Base: add 0\.098 USDC or more on Base to this wallet, then press "Pay with wallet" again\.$/,
    );
    expect(sentences(poorly)).toHaveLength(1);
    await poor.page.close();

    await buyer(74);
    const stuck = await open('/skills/csv-cleaner/', { account: 74, decline: ['wallet_addEthereumChain'] });
    await stuck.page.locator('#pay-wallet').click();
    await stuck.page.locator('#status.err').waitFor({ timeout: 15_000 });
    // It did not know Base: asked to add it (4902), it refused, which is a refused switch for the person.
    expect(stuck.wallet!.calls).toEqual(expect.arrayContaining(['wallet_switchEthereumChain', 'wallet_addEthereumChain']));
    expect(await stuck.page.locator('#status').textContent()).toMatch(/^Your wallet refused to switch to the Base network,/);
    expect(stuck.wallet!.sent).toEqual([]);
    await stuck.page.close();
  });

  it('a wallet with only USDbC and no ETH is told what to add: the signature path pays in USDC only', async () => {
    const { address } = testAccount(77);
    await chain.setTokenBalance(usdc, address, 0n);
    await chain.setTokenBalance(inject('usdbc') as Address, address, 10n ** 9n);
    await chain.setEthBalance(address, 0n);
    const { page, wallet } = await open('/skills/csv-cleaner/', { account: 77 });
    await page.locator('#pay-wallet').click();
    await page.locator('#status.err').waitFor({ timeout: 15_000 });
    expect(await page.locator('#status').textContent()).toMatch(
      /holds 0 ETH on Base, not enough for the fee of a USDbC transfer: add a little ETH on Base for gas, or USDC \(which pays here without ETH\)/,
    );
    expect(wallet!.sent).toEqual([]);
    expect(wallet!.typedData).toEqual([]);
    await page.close();
  });

  it('a wallet with USDC but no ETH for gas pays by signing the x402 authorization; the shop submits the transfer', async () => {
    const skill = 'api-contract-verifier';
    const { address } = testAccount(75);
    await chain.setTokenBalance(usdc, address, 10n ** 9n);
    await chain.setEthBalance(address, 0n);
    const { page, wallet } = await open(`/skills/${skill}/`, { account: 75 });
    await page.locator('#pay-wallet').click();
    await page.locator('#status.ok').waitFor({ timeout: 30_000 });
    expect(await page.locator('#steps li.done').allTextContents()).toEqual(['Sent', 'Included', 'Confirmed', 'Unlocked']);
    expect(await page.locator('#seal').getAttribute('data-verified')).toBe('true');
    expect(await page.locator('#license').inputValue()).toMatch(/^eyJ/);
    // One EIP-3009 authorization, no transaction from the wallet; the row names it as the payer.
    expect(wallet!.sent).toEqual([]);
    expect(wallet!.typedData).toEqual([
      expect.objectContaining({
        primaryType: 'TransferWithAuthorization',
        message: expect.objectContaining({ from: address.toLowerCase() }),
      }),
    ]);
    const proof = (await (await fetch(`${base}/api/proof?skill=${skill}`)).json()) as { recent_unlocks: { payer: string }[] };
    expect(proof.recent_unlocks.map((r) => r.payer)).toEqual([address]);
    await page.close();
  });

  it(
    '"Paid when delivered": the wallet signs x402 auth-capture, the escrow holds the price, the pack is delivered, then the escrow pays the shop',
    { timeout: 60_000 },
    async () => {
      // $1.99: above the x402 client's default cap ($1), which the page replaces with the price it showed.
      const skill = 'pydantic-v1-to-v2-migration';
      // ETH for gas too: paying now would send a transfer, so a signature alone shows the choice was followed.
      const payer = await buyer(182);
      const balanceOf = (who: Address) => chain.pub.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
      const price = BigInt(
        ((await (await fetch(`${base}/api/pay?skill=${skill}`)).json()) as { maxAmountRequired: string }).maxAmountRequired,
      );
      expect(price).toBeGreaterThan(1_000_000n);
      const [before, fromBlock] = [await balanceOf(payer), await chain.pub.getBlockNumber()];
      const { page, wallet } = await open(`/skills/${skill}/`, { account: 182 });
      // The two ways, in plain words; paying now is the default.
      expect(await page.locator('#pay-how legend').textContent()).toBe('How your wallet pays');
      expect(await page.locator('#pay-how input:checked').getAttribute('value')).toBe('now');
      expect(await page.locator('#pay-how label:has(input[value="escrow"])').textContent()).toBe(
        "Paid when delivered: the price is held in Base's public escrow contract and released to the shop only once your pack is delivered; " +
          'if delivery fails, it comes back to you.',
      );
      await page.locator('#pay-how input[value="escrow"]').check();
      await page.locator('#pay-wallet').click();
      await page.locator('#status.ok').waitFor({ timeout: 30_000 });
      expect(await page.locator('#steps li.done').allTextContents()).toEqual(['Sent', 'Included', 'Confirmed', 'Unlocked']);
      expect(await page.locator('#seal').getAttribute('data-verified')).toBe('true');
      expect(await page.locator('.file code').allTextContents()).toContain('SKILL.md');
      expect(await page.locator('#license').inputValue()).toMatch(/^eyJ/);

      // One ERC-3009 ReceiveWithAuthorization (what x402's auth-capture signs), no transaction from the wallet.
      expect(wallet!.sent).toEqual([]);
      expect(wallet!.typedData).toEqual([
        expect.objectContaining({
          primaryType: 'ReceiveWithAuthorization',
          message: expect.objectContaining({ from: payer.toLowerCase(), value: price.toString() }),
        }),
      ]);

      // On chain: the escrow authorized this buyer's payment of the price to the shop, and then captured it, once.
      const authorized = (
        await chain.pub.getContractEvents({
          address: LOCAL_AUTH_CAPTURE_ESCROW,
          abi: AUTH_CAPTURE_ESCROW_ABI,
          eventName: 'PaymentAuthorized',
          fromBlock,
        })
      ).filter((l) => (l.args as { paymentInfo: { payer: Address } }).paymentInfo.payer === payer);
      expect(authorized).toHaveLength(1);
      const args = authorized[0]!.args as { paymentInfoHash: Hex; amount: bigint; paymentInfo: { receiver: Address } };
      expect(args.amount).toBe(price);
      expect(args.paymentInfo.receiver.toLowerCase()).toBe((inject('treasury') as string).toLowerCase());
      const captured = await chain.pub.getContractEvents({
        address: LOCAL_AUTH_CAPTURE_ESCROW,
        abi: AUTH_CAPTURE_ESCROW_ABI,
        eventName: 'PaymentCaptured',
        args: { paymentInfoHash: args.paymentInfoHash },
        fromBlock,
      });
      expect(captured.map((l) => (l.args as { amount: bigint }).amount)).toEqual([price]);
      expect(captured[0]!.blockNumber).toBeGreaterThanOrEqual(authorized[0]!.blockNumber);
      // Charged the price once; the sale is on the ledger, named by the authorize.
      expect(await balanceOf(payer)).toBe(before - price);
      const proof = (await (await fetch(`${base}/api/proof?skill=${skill}`)).json()) as {
        recent_unlocks: { payer: string; txHash: string }[];
      };
      expect(proof.recent_unlocks.map((r) => [r.payer, r.txHash])).toEqual([[payer, authorized[0]!.transactionHash]]);
      await page.close();
    },
  );

  it('"Paid when delivered" where the shop offers no escrow: one sentence, nothing signed or sent', async () => {
    await buyer(183);
    const { page, wallet } = await open('/skills/csv-cleaner/', { account: 183 });
    // A deployment without an escrow operator: the 402 offers no auth-capture.
    await page.route('**/api/pay?*', async (route) => {
      const res = await route.fetch();
      const headers = { ...res.headers() };
      delete headers['payment-required'];
      await route.fulfill({ response: res, headers });
    });
    await page.locator('#pay-how input[value="escrow"]').check();
    await page.locator('#pay-wallet').click();
    await page.locator('#status.err').waitFor({ timeout: 15_000 });
    const said = await page.locator('#status').textContent();
    expect(said).toBe(
      'This shop does not take "Paid when delivered" payments right now, so nothing was paid: choose "Pay now", then press "Pay with wallet" again.',
    );
    expect(sentences(said)).toHaveLength(1);
    expect(wallet!.sent).toEqual([]);
    expect(wallet!.typedData).toEqual([]);
    await page.close();
  });

  it('the card button opens an ACP checkout session and goes to its continue_url', async () => {
    const { page } = await open('/skills/csv-cleaner/');
    // The stack's card checkout is on (the Stripe stand-in): the card price, why it differs, and the button show.
    await page.locator('#card-offer').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#card-offer').textContent()).toMatch(
      /^Or \$10\.00 by card: a card payment carries a fixed processing fee on every sale, .* a USDC payment on Base reaches the shop with no processor's fee/,
    );
    await page.locator('#pay-card').click();
    await page.waitForURL((u) => u.toString().startsWith(inject('stripeBase')), { timeout: 15_000 });
    expect(await page.locator('#pay').count()).toBe(1);
    await page.close();
    // Skills without a card price offer no card button.
    const other = await open('/skills/agent-hot-wallet-provisioning/');
    expect(await other.page.locator('#pay-card').count()).toBe(0);
    await other.page.close();
    // A shop that takes no cards (ACP discovery: enabled false) shows neither the card price nor its button.
    const off = await browser.newPage();
    await off.route('**/.well-known/acp.json', async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), enabled: false } });
    });
    await Promise.all([off.waitForResponse('**/.well-known/acp.json'), off.goto(`${base}/skills/csv-cleaner/`)]);
    await off.waitForFunction(() => document.documentElement.dataset['ready'] === 'true');
    expect(await off.locator('#pay-card').isVisible()).toBe(false);
    expect(await off.locator('#card-offer').isVisible()).toBe(false);
    await off.close();
  });

  it('works on a phone-sized screen and from the keyboard', async () => {
    const { page } = await open('/', undefined, PHONE);
    const home = await phoneLayout(page, ['#search button[type=submit]'], join(PHONE_SHOTS, 'home.png'));
    expect(home.overflowing).toEqual([]);
    expect(home.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expect(home.tooSmall).toEqual([]);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.locator('#q').focus();
    await page.keyboard.type('csv');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.search.includes('q=csv'));
    await page.close();
  });

  // A whole purchase and more pages: longer than most, on two shared cores.
  it(
    'a skill page and a whole wallet purchase fit a phone: no sideways scroll, every main button shown and 44 px tall',
    { timeout: 60_000 },
    async () => {
      await buyer(82);
      const skillPage = await open('/skills/csv-cleaner/', { account: 82 }, PHONE);
      await skillPage.page.locator('#pay-card').waitFor({ state: 'visible', timeout: 10_000 });
      const skill = await phoneLayout(skillPage.page, ['#pay-wallet', '#pay-card', 'label.wallet'], join(PHONE_SHOTS, 'skill.png'));
      expect(skill.overflowing).toEqual([]);
      expect(skill.scrollWidth).toBeLessThanOrEqual(PHONE.width);
      expect(skill.tooSmall).toEqual([]);
      await skillPage.page.close();

      // The purchase's end: the progress, the files, the seal and the license, with their buttons.
      const { page } = await open('/skills/excel-sheet-to-tidy-table/', { account: 82 }, PHONE);
      await page.locator('#pay-wallet').click();
      await page.locator('#status.ok').waitFor({ timeout: 30_000 });
      const bought = await phoneLayout(
        page,
        ['#pay-wallet', '#download-zip', '#copy-license', '#download-license', '.file button[data-path]'],
        join(PHONE_SHOTS, 'purchase.png'),
      );
      expect(bought.overflowing).toEqual([]);
      expect(bought.scrollWidth).toBeLessThanOrEqual(PHONE.width);
      expect(bought.tooSmall).toEqual([]);
      await page.close();
    },
  );

  it("the terms, privacy, refund and contact pages: reached from every page's footer, marked as an example operator, readable on a phone", async () => {
    const { page } = await open('/');
    const pages = [
      ['Terms', '/terms/', 'Terms of sale'],
      ['Privacy', '/privacy/', 'Privacy'],
      ['Refunds', '/refunds/', 'Refund policy'],
      ['Contact', '/contact/', 'Contact'],
    ] as const;
    // From the home page, then from each operator page's own footer to the next.
    for (const [label, path, heading] of pages) {
      await page.locator('footer nav[aria-label="About the shop"]').getByRole('link', { name: label, exact: true }).click();
      await page.waitForURL(`${base}${path}`);
      expect(await page.locator('h1').textContent()).toBe(heading);
      // The test stack builds without operator settings: every page says it is no real seller's.
      const notice = page.locator('#placeholder-operator');
      expect(await notice.isVisible()).toBe(true);
      expect(await notice.textContent()).toMatch(/^Example operator, not for publication\./);
    }
    await page.close();
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    phone.on('pageerror', (e) => problems.push(`${phone.url()}: ${e.message}`));
    await recordCspViolations(phone, violations);
    for (const [, path] of pages) {
      await phone.goto(`${base}${path}`);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
    }
    await phone.close();
  });

  it('no other origin can frame a page with pay buttons: the frame is refused (frame-ancestors none)', async () => {
    // A page on another origin (another loopback port) that frames the skill page, as a clickjacker would.
    const framer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>framer</title><iframe id="f" src="${base}/skills/csv-cleaner/" width="800" height="600"></iframe>`);
    });
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    try {
      const page = await browser.newPage();
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/frame-ancestors/.test(m.text())) refused.push(m.text());
      });
      const framed = page.waitForResponse((r) => r.url() === `${base}/skills/csv-cleaner/`);
      await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
      expect((await framed).status()).toBe(200);
      // Chromium replaces a refused frame's document with its error page: none of the shop's page is in it.
      await page.waitForFunction(() => document.querySelector('iframe')?.contentWindow !== null);
      await expect
        .poll(
          () =>
            page
              .frames()
              .find((f) => f !== page.mainFrame())
              ?.url() ?? '',
          { timeout: 5_000 },
        )
        .not.toBe('');
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      await expect.poll(async () => refused.length, { timeout: 5_000 }).toBeGreaterThan(0);
      expect(frame.url()).not.toContain('/skills/csv-cleaner/');
      expect(await frame.locator('#pay-wallet, #pay-card').count()).toBe(0);
      expect(refused[0]).toMatch(/frame-ancestors 'none'/);
      await page.close();
    } finally {
      await new Promise((resolve) => framer.close(resolve));
    }
  });

  it('no page logged an error', () => {
    expect(problems).toEqual([]);
  });

  it('no page reported a Content-Security-Policy violation: every page works under its CSP', () => {
    expect(violations).toEqual([]);
  });
});
