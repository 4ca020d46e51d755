/**
 * "Provenance verified" on a skill page, in headless Chromium on the local stack (issue 52): the
 * page fetches the version's signed provenance (`GET /api/packs/provenance`) and the shop's keys
 * (`GET /.well-known/jwks.json`) and verifies them with WebCrypto. Both answers are served here by
 * Playwright's request interception, signed in the test with a key of its own and published in a
 * JWKS of its own, so each case is exactly the answer the test means: a bundle that verifies, one
 * with a byte of its payload changed, one signed by another key than the JWKS publishes, and no
 * record at all. Only the first says "Verified". The version and digest the statements must name
 * are the committed version store's, not the page's.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadVersionStore } from '../../catalog/versions';
import { haveBrowser, launchChromium, recordCspViolations } from '../support/browser';
import { jwksOf, provenanceAnswer, tampered, testKey, type TestKey } from '../support/provenance-bundle';

const base = inject('baseUrl');
const SKILL = 'csv-cleaner';
const current = loadVersionStore().get(SKILL)!.at(-1)!;
let browser: Browser;
let key: TestKey;
let signed: Record<string, unknown>;

const violations: string[] = [];
const problems: string[] = [];

beforeAll(async () => {
  if (!haveBrowser) return;
  browser = await launchChromium();
  key = testKey('storefront-test-key');
  signed = await provenanceAnswer(key, {
    skill: SKILL,
    version: current.version,
    digest: current.digest,
    files: current.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
  });
});
afterAll(async () => browser?.close());

interface Shown {
  state: string | undefined;
  text: string | null;
  note: string | null;
  /** The provenance URLs the page asked for. */
  asked: string[];
  page: Page;
  context: BrowserContext;
}

/** Opens the skill page with these two answers in place of the shop's, and waits for the check's end. */
async function openWith(provenance: { status: number; body: unknown }, jwks: unknown): Promise<Shown> {
  const context = await browser.newContext();
  await recordCspViolations(context, violations);
  const asked: string[] = [];
  await context.route(
    (url) => url.pathname === '/api/packs/provenance',
    (route) => {
      asked.push(route.request().url());
      return route.fulfill({ status: provenance.status, contentType: 'application/json', body: JSON.stringify(provenance.body) });
    },
  );
  await context.route(
    (url) => url.pathname === '/.well-known/jwks.json',
    (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(jwks) }),
  );
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${base}/skills/${SKILL}/`);
  await page.waitForSelector('html[data-ready="true"]');
  await page.waitForFunction(() => document.getElementById('provenance')?.dataset['state'] !== 'checking', undefined, { timeout: 15_000 });
  const fact = page.locator('#provenance');
  return {
    state: await fact.evaluate((e) => (e as HTMLElement).dataset['state']),
    text: await fact.textContent(),
    note: await page.locator('#provenance-note').textContent(),
    asked,
    page,
    context,
  };
}

describe.skipIf(!haveBrowser)('a skill page checks its version’s signed provenance', () => {
  it('says "Verified" for statements signed by the published key naming the version and digest it shows; the digest copies', async () => {
    const shown = await openWith({ status: 200, body: signed }, jwksOf(testKey('another-key'), key));
    expect(shown.state).toBe('verified');
    expect(shown.text).toBe('Verified');
    expect(shown.note).toContain(`Version ${current.version}'s build record and checks are signed`);
    expect(shown.asked.map((u) => new URL(u).search)).toEqual([`?skill=${SKILL}&version=${current.version}`]);
    // What it checked against is what the page prints: this version's number and digest.
    expect(await shown.page.locator('#version').getAttribute('data-version')).toBe(String(current.version));
    expect(await shown.page.locator('#version-digest').textContent()).toBe(`sha256:${current.digest}`);
    // The digest is copyable, from under Details.
    await shown.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await shown.page
      .locator('details', { has: shown.page.locator('#version-digest') })
      .locator('summary')
      .click();
    await shown.page.locator('#copy-digest').click();
    await shown.page.locator('#copy-digest', { hasText: 'Copied' }).waitFor();
    expect(await shown.page.evaluate(() => navigator.clipboard.readText())).toBe(`sha256:${current.digest}`);
    await shown.context.close();
  });

  it('says the check failed, never "Verified", when one byte of a signed statement changed', async () => {
    const shown = await openWith({ status: 200, body: tampered(signed) }, jwksOf(key));
    expect(shown.state).toBe('failed');
    expect(shown.text).toBe('Check failed');
    expect(shown.note).toMatch(/^The signed record does not hold: its signature does not match the shop's key\. Do not rely on it\.$/);
    await shown.context.close();
  });

  it('says the check failed when the published key under that kid is another one', async () => {
    const shown = await openWith({ status: 200, body: signed }, jwksOf(testKey(key.kid)));
    expect(shown.state).toBe('failed');
    expect(shown.text).toBe('Check failed');
    await shown.context.close();
  });

  it('says it is not available, never "Verified", when the shop sends no record', async () => {
    const failure = { ok: false, error_code: 'INTERNAL_ERROR', message: 'The provenance could not be read.', retry: true };
    const shown = await openWith({ status: 503, body: failure }, jwksOf(key));
    expect(shown.state).toBe('unavailable');
    expect(shown.text).toBe('Not available');
    expect(shown.note).toBe("The shop did not send this version's signed record just now, so it could not be checked. Try again later.");
    await shown.context.close();
  });

  it('says "Verified" against the shop itself: its provenance route and its published key, nothing intercepted', async () => {
    const context = await browser.newContext();
    await recordCspViolations(context, violations);
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    for (const skill of [SKILL, 'agent-x402-first-buy']) {
      await page.goto(`${base}/skills/${skill}/`);
      await page.waitForFunction(() => document.getElementById('provenance')?.dataset['state'] !== 'checking', undefined, {
        timeout: 30_000,
      });
      expect(await page.locator('#provenance').evaluate((e) => (e as HTMLElement).dataset['state']), skill).toBe('verified');
    }
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('raised no page error and no CSP violation', () => {
    expect(problems).toEqual([]);
    expect(violations).toEqual([]);
  });
});
