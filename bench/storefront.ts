/**
 * Issue 16's figures: the storefront's page weights (gzip bytes of HTML, CSS and the JavaScript
 * each page type loads at first, and the wallet purchase loaded on its first click), and the
 * time to a usable home page in Debian's Chromium on the local stack (`npm start`'s command):
 * from navigation to the `storefront-ready` mark (the search wired to /api/catalog), with first
 * contentful paint beside it; a fresh browser context per cold load, then reloads with its cache.
 * Usage: npx tsx bench/storefront.ts [loads=10]
 */
import { buildCatalog } from '../catalog/build';
import { BUDGET, pageWeight, walletPurchaseWeight, x402ClientWeight, type PageType } from '../catalog/storefront/budget';
import { launchChromium } from '../test/support/browser';
import { percentile, startMarket } from './harness';

const loads = Number(process.argv[2] ?? '10');

const built = await buildCatalog();
const html = (p: string): string => built.publicFiles.get(p)!.toString();
const heaviestSkill = built.entries.map((e) => html(`skills/${e.id}/index.html`)).sort((a, b) => b.length - a.length)[0]!;
const pages: Record<PageType, string> = {
  home: html('index.html'),
  skill: heaviestSkill,
  proof: html('proof/index.html'),
  recover: html('recover/index.html'),
  'checkout-success': html('checkout/success/index.html'),
};
console.log('page weight, gzip bytes (budget in brackets):');
for (const type of Object.keys(pages) as PageType[]) {
  const w = pageWeight(pages[type], type, built.assets);
  const b = BUDGET[type];
  console.log(
    `  ${type.padEnd(16)} html ${w.html} [${b.html}]  css ${w.css} [${b.css}]  js ${w.js} [${b.js}]  total ${w.html + w.css + w.js}` +
      (type === 'skill' ? ' (the heaviest skill page)' : ''),
  );
}
console.log(`  wallet purchase, on first click: ${walletPurchaseWeight(built.assets)} [${BUDGET.walletPurchase}]`);
console.log(`  x402 client, only to pay by signature (no ETH for gas): ${x402ClientWeight(built.assets)} [${BUDGET.x402Client}]`);

const market = await startMarket();
const browser = await launchChromium();
try {
  const timing = () =>
    performance.now() >= 0 && {
      ready: performance.getEntriesByName('storefront-ready')[0]?.startTime ?? NaN,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      dcl: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd,
    };
  const measure = async (reloads: boolean) => {
    const ready: number[] = [];
    const fcp: number[] = [];
    for (let i = 0; i < loads; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${market.url}/`);
      if (reloads) await page.reload();
      await page.waitForSelector('html[data-ready="true"]');
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
      const t = (await page.evaluate(timing)) as { ready: number; fcp: number };
      ready.push(t.ready);
      fcp.push(t.fcp);
      await context.close();
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    return { ready: sorted(ready), fcp: sorted(fcp) };
  };
  await measure(false); // warm the server and Chromium once
  for (const [label, reloads] of [
    ['cold cache', false],
    ['warm cache, a reload', true],
  ] as const) {
    const r = await measure(reloads);
    console.log(
      `home page usable (${label}), ${loads} loads: p50 ${percentile(r.ready, 50).toFixed(0)} ms, p90 ${percentile(r.ready, 90).toFixed(0)} ms;` +
        ` first contentful paint p50 ${percentile(r.fcp, 50).toFixed(0)} ms`,
    );
  }
} finally {
  await browser.close();
  await market.stop();
}
