/**
 * The card checkout success page in headless Chromium (Debian's, driven by playwright-core):
 * a person pays on the hosted page (the Stripe stand-in's), Stripe's signed webhook records the
 * sale, and the page Stripe returns them to shows "waiting" until then and the pack after, with
 * the license to keep (a sentence on what it is for, Copy, Download as a file). The success page
 * at phone width (390 px) is screenshot to test-results/phone-390/checkout-success.png.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { haveBrowser, launchChromium, PHONE, phoneLayout, recordCspViolations } from '../support/browser';
import { requestFrom } from '../support/source-address';

const base = inject('baseUrl');
const stripeBase = inject('stripeBase');
const PHONE_SHOTS = fileURLToPath(new URL('../../test-results/phone-390/', import.meta.url));
let browser: Browser;

/** Content-Security-Policy violations reported by any page of this file. */
const violations: string[] = [];
/** A page in a context of its own (as browser.newPage makes), recording CSP violations. */
async function newPage(viewport = { width: 1200, height: 900 }) {
  const context = await browser.newContext({ acceptDownloads: true, viewport });
  // The Copy button writes to the clipboard; the test reads it back.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await recordCspViolations(context, violations);
  return context.newPage();
}

beforeAll(async () => {
  if (!haveBrowser) return;
  browser = await launchChromium();
  mkdirSync(PHONE_SHOTS, { recursive: true });
});
afterAll(async () => browser?.close());

const openSession = async (skill: string) => {
  const res = await fetch(`${base}/api/acp/checkout_sessions`, {
    method: 'POST',
    body: JSON.stringify({ line_items: [{ id: skill, quantity: 1 }] }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; continue_url: string };
};

describe.skipIf(!haveBrowser)('/checkout/success in Chromium', () => {
  it('pay on the hosted page → redirected to the success page → the pack and its license', async () => {
    const session = await openSession('ten-send');
    const page = await newPage();
    await page.goto(session.continue_url);
    await page.locator('#pay').click();
    await page.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    expect(await page.locator('#status').textContent()).toMatch(/Paid: Ten Send|Paid: .+, \d+ file/);
    const token = await page.locator('#license').inputValue();
    expect(token).toMatch(/^eyJ/);
    expect(await page.locator('.file code').allTextContents()).toContain('SKILL.md');

    // The license, with what it is for (the purchases page, linked) in one sentence, not an API recipe.
    const note = page.locator('#license-note');
    expect(await note.textContent()).toBe(
      'Keep this license: it is how you download this pack again, with no new payment, on your purchases page from this or any other browser.',
    );
    expect(await note.locator('a').getAttribute('href')).toBe('/purchases/');
    expect(await page.locator('#pack').textContent()).not.toMatch(/X-LICENSE|POST \/api\/pay/);
    // Copy puts the token on the clipboard.
    await page.locator('#copy-license').click();
    await page.locator('#copy-license', { hasText: 'Copied' }).waitFor({ timeout: 5_000 });
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    // Download saves a .txt with the license and the skill.
    const [saved] = await Promise.all([page.waitForEvent('download'), page.locator('#download-license').click()]);
    expect(saved.suggestedFilename()).toBe('ten-send-license.txt');
    const text = readFileSync((await saved.path())!, 'utf8');
    expect(text).toContain(token);
    expect(text).toMatch(/^Your license for .+ \(ten-send\), Agent Skill Marketplace\n/);
    expect(text).toContain(`${base}/skills/ten-send/`);
    expect(text).toContain(`${base}/purchases/`);

    // The license is kept in this browser: back on the page, it is what gets the pack again.
    const stripeId = new URL(page.url()).searchParams.get('session_id')!;
    expect(await page.evaluate((k) => localStorage.getItem(k), `skill-market:card-license:${stripeId}`)).toBe(token);
    const sent: (string | undefined)[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/checkout/delivery')) sent.push(r.headers()['x-license']);
    });
    await page.reload();
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    expect(sent).toEqual([token]);
    expect(await page.locator('#license').inputValue()).toBe(token);
    await page.close();

    // The license from the page redeems like an x402 license.
    const redeemed = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': token } });
    expect(redeemed.status).toBe(200);
  });

  it('shows "waiting for confirmation" until the webhook arrives, then the pack', async () => {
    const session = await openSession('csv-cleaner');
    const stripeId = session.continue_url.split('/').at(-1)!;
    const page = await newPage();
    await page.goto(`${base}/checkout/success?session_id=${stripeId}`);
    await page.locator('#status.busy', { hasText: 'Waiting for confirmation' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('#result').isHidden()).toBe(true);

    // Paid at Stripe; the event is delivered a moment later, signed as Stripe signs it.
    const event = await (await fetch(`${stripeBase}/_test/sessions/${stripeId}/pay`, { method: 'POST' })).text();
    const signature = new Stripe('sk_test_signer_only').webhooks.generateTestHeaderString({
      payload: event,
      secret: inject('stripeWebhookSecret'),
    });
    const hook = await fetch(`${base}/api/checkout/stripe-webhook`, {
      method: 'POST',
      headers: { 'stripe-signature': signature },
      body: event,
    });
    expect(hook.status).toBe(200);

    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    expect(await page.locator('#license').inputValue()).toMatch(/^eyJ/);
    await page.close();
  });

  it('after the first delivery, another browser is asked for the license, and shows the pack once it is pasted', async () => {
    const session = await openSession('market-x402-merchant-os');
    const stripeId = session.continue_url.split('/').at(-1)!;
    const event = await (await fetch(`${stripeBase}/_test/sessions/${stripeId}/pay`, { method: 'POST' })).text();
    const signature = new Stripe('sk_test_signer_only').webhooks.generateTestHeaderString({
      payload: event,
      secret: inject('stripeWebhookSecret'),
    });
    await fetch(`${base}/api/checkout/stripe-webhook`, { method: 'POST', headers: { 'stripe-signature': signature }, body: event });
    // The buyer's first delivery happened elsewhere (another device: another address).
    const first = await requestFrom('127.0.0.2', `${base}/api/checkout/delivery?session_id=${stripeId}`);
    expect(first.status).toBe(200);
    const token = first.body.license.token as string;

    const page = await newPage();
    await page.goto(`${base}/checkout/success?session_id=${stripeId}`);
    await page.locator('#status.err', { hasText: 'license' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('#result').isHidden()).toBe(true);
    await page.locator('#license-input').fill('not-my-license');
    await page.locator('#license-form button[type=submit]').click();
    await page.locator('#status.err', { hasText: 'not valid' }).waitFor({ timeout: 10_000 });
    await page.locator('#license-input').fill(token);
    await page.locator('#license-form button[type=submit]').click();
    await page.locator('#status.ok').waitFor({ timeout: 10_000 });
    expect(await page.locator('#license-form').isHidden()).toBe(true);
    expect(await page.locator('.file code').allTextContents()).toContain('SKILL.md');
    await page.close();
  });

  it('the success page fits a phone: no sideways scroll, the license and pack buttons shown and 44 px tall', async () => {
    const session = await openSession('csv-cleaner');
    const page = await newPage(PHONE);
    await page.goto(session.continue_url);
    await page.locator('#pay').click();
    await page.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
    await page.locator('#status.ok').waitFor({ timeout: 15_000 });
    const layout = await phoneLayout(
      page,
      ['#copy-license', '#download-license', '#download-zip', '.file button[data-path]'],
      join(PHONE_SHOTS, 'checkout-success.png'),
    );
    expect(layout.overflowing).toEqual([]);
    expect(layout.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expect(layout.tooSmall).toEqual([]);
    await page.close();
  });

  it('no page reported a Content-Security-Policy violation', () => {
    expect(violations).toEqual([]);
  });
});
