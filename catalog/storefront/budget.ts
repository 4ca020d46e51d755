/**
 * The storefront's page-weight budget, in gzip bytes as a browser downloads them, held by
 * test/unit/storefront.test.ts and reported by bench/storefront.ts. A page's weight is its
 * HTML, the stylesheet, and its entry script with every chunk that script imports statically;
 * the wallet purchase (viem) is counted apart, as it loads only when a person presses "Pay with wallet",
 * and so is the skill page's provenance check, loaded once the page is usable.
 */
import { gzipSync } from 'node:zlib';
import type { BuiltAssets } from './assets';

export const BUDGET = {
  /** Every page type's HTML + CSS + JavaScript at first load. */
  home: { html: 36_000, css: 2_500, js: 4_000 },
  skill: { html: 6_000, css: 2_500, js: 4_000 },
  proof: { html: 2_500, css: 2_500, js: 4_000 },
  recover: { html: 2_500, css: 2_500, js: 4_000 },
  /** Its JS also carries the one date format (browser/dates.ts, shared with the ledger page): 4,068 bytes when it came. */
  purchases: { html: 2_500, css: 2_500, js: 4_500 },
  'checkout-success': { html: 2_500, css: 2_500, js: 4_000 },
  /**
   * The skill page's version facts (browser/version-facts.ts: the provenance check with WebCrypto and
   * the digest's Copy button), loaded by the page's script once the page is usable: 1,751 bytes when it came.
   */
  provenanceCheck: 2_000,
  /** The wallet purchase and everything it imports (viem's actions, fflate), loaded on the first click. */
  walletPurchase: 85_000,
  /**
   * The x402 client (its own copy of viem, the exact and auth-capture schemes), loaded only when a wallet pays by signature:
   * for want of gas, or paid when delivered (the escrow). 119,379 bytes before the escrow's scheme came, 130,320 with it.
   */
  x402Client: 150_000,
} as const;

export type PageType = 'home' | 'skill' | 'proof' | 'recover' | 'purchases' | 'checkout-success';

export interface PageWeight {
  html: number;
  css: number;
  js: number;
}

const gz = (bytes: Uint8Array | string): number => gzipSync(bytes, { level: 9 }).length;

/** Every output `url` loads before it runs: itself and its static imports, transitively. */
export function staticClosure(graph: BuiltAssets['graph'], url: string): string[] {
  const seen = new Set<string>();
  const visit = (u: string): void => {
    if (seen.has(u)) return;
    seen.add(u);
    for (const next of graph[u]?.static ?? []) visit(next);
  };
  visit(url);
  return [...seen];
}

const fileOf = (assets: BuiltAssets, url: string): Uint8Array => {
  const bytes = assets.files.get(url.slice(1));
  if (!bytes) throw new Error(`${url} was not built`);
  return bytes;
};

/** Gzip bytes of a page's HTML, the stylesheet and the JavaScript it loads at first. */
export function pageWeight(html: string, script: PageType, assets: BuiltAssets): PageWeight {
  return {
    html: gz(html),
    css: gz(fileOf(assets, assets.css)),
    js: staticClosure(assets.graph, assets.scripts[script]!).reduce((n, u) => n + gz(fileOf(assets, u)), 0),
  };
}

/** Gzip bytes of what the skill page loads when its script imports the module `name`, beyond what it already has. */
function skillChunkWeight(assets: BuiltAssets, name: string): number {
  const page = new Set(staticClosure(assets.graph, assets.scripts['skill']!));
  const lazy = assets.graph[assets.scripts['skill']!]!.dynamic.filter((u) => u.startsWith(`/assets/${name}-`));
  if (lazy.length === 0) throw new Error(`the skill page does not import ${name}`);
  const loaded = new Set(lazy.flatMap((u) => staticClosure(assets.graph, u)).filter((u) => !page.has(u)));
  return [...loaded].reduce((n, u) => n + gz(fileOf(assets, u)), 0);
}

/** Gzip bytes of what the skill page loads on "Pay with wallet", beyond what it already has. */
export const walletPurchaseWeight = (assets: BuiltAssets): number => skillChunkWeight(assets, 'wallet-buy');

/** Gzip bytes of the skill page's version facts (its provenance check), loaded once the page is usable. */
export const provenanceCheckWeight = (assets: BuiltAssets): number => skillChunkWeight(assets, 'version-facts');

/** Gzip bytes of the x402 client, which the wallet purchase loads only to pay by signature. */
export function x402ClientWeight(assets: BuiltAssets): number {
  const walletBuy = Object.keys(assets.graph).find((u) => u.startsWith('/assets/wallet-buy-'))!;
  const client = assets.graph[walletBuy]!.dynamic.find((u) => u.startsWith('/assets/wallet-authorization-'))!;
  return staticClosure(assets.graph, client).reduce((n, u) => n + gz(fileOf(assets, u)), 0);
}
