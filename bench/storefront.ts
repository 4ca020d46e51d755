/**
 * Issue 16's figures: the storefront's page weights as CloudFront serves them (gzip bytes of
 * HTML, CSS and the JavaScript each page type loads at first, the wallet purchase loaded on its
 * first click, and the x402 client), against the budget test/unit/storefront.test.ts holds.
 * Usage: npx tsx bench/storefront.ts
 */
import { buildCatalog } from '../catalog/build';
import {
  BUDGET,
  pageWeight,
  provenanceCheckWeight,
  walletPurchaseWeight,
  x402ClientWeight,
  type PageType,
} from '../catalog/storefront/budget';

const built = await buildCatalog();
const html = (p: string): string => built.publicFiles.get(p)!.toString();
const heaviestSkill = built.entries.map((e) => html(`skills/${e.id}/index.html`)).sort((a, b) => b.length - a.length)[0]!;
const pages: Record<PageType, string> = {
  home: html('index.html'),
  skill: heaviestSkill,
  proof: html('proof/index.html'),
  recover: html('recover/index.html'),
  purchases: html('purchases/index.html'),
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
console.log(`  skill page's provenance check, once the page is usable: ${provenanceCheckWeight(built.assets)} [${BUDGET.provenanceCheck}]`);
console.log(`  wallet purchase, on first click: ${walletPurchaseWeight(built.assets)} [${BUDGET.walletPurchase}]`);
console.log(
  `  x402 client, only to pay by signature (no ETH for gas, or paid when delivered): ${x402ClientWeight(built.assets)} [${BUDGET.x402Client}]`,
);
