/**
 * The storefront's pages against axe-core (Deque's accessibility engine, the rules of WCAG 2.1 A
 * and AA), in headless Chromium at 1280 and at 390 px: every page a person reads has no
 * violation (issue 51: "keep axe at 0"). axe is evaluated in the page through the DevTools
 * protocol, as its own Playwright integration does, so the pages' Content-Security-Policy stays as
 * served.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { haveBrowser, launchChromium, PHONE } from '../support/browser';

const base = inject('baseUrl');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DESKTOP = { width: 1280, height: 900 } as const;
const PAGES = [
  '/',
  '/agents/',
  '/skills/csv-cleaner/',
  '/proof/',
  '/purchases/',
  '/recover/?skill=csv-cleaner',
  '/terms/',
  '/privacy/',
  '/refunds/',
  '/contact/',
];
let browser: Browser;

beforeAll(async () => {
  if (!haveBrowser) return;
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

describe.skipIf(!haveBrowser)('the storefront against axe-core (WCAG 2.1 A and AA)', () => {
  for (const viewport of [DESKTOP, PHONE]) {
    it(`at ${viewport.width} px: no violation on any page a person reads`, { timeout: 120_000 }, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const found: string[] = [];
      for (const path of PAGES) {
        // Every page is read once its scripts have settled (the ones with a script mark it ready).
        await page.goto(`${base}${path}`, { waitUntil: 'networkidle' });
        if (await page.locator('script[src]').count())
          await page.waitForSelector('html[data-ready="true"]', { timeout: 10_000 }).catch(() => undefined);
        await page.evaluate(AXE);
        const violations = await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: AxeViolation[] }> } })
            .axe;
          const out = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
          return out.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target })),
          }));
        });
        for (const v of violations as AxeViolation[])
          found.push(
            `${path}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes
              .map((n) => n.target.join(' '))
              .slice(0, 3)
              .join(', ')}`,
          );
      }
      await context.close();
      expect(found).toEqual([]);
    });
  }
});
