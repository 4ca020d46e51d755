/**
 * The storefront's browser code and stylesheet, bundled by esbuild at catalog build into
 * content-hashed files under /assets/ (served `immutable`, lambdas/contract/static-assets.ts).
 * ES modules with code splitting: each page loads only its entry and the chunks it imports;
 * the wallet purchase (viem) and the pack viewer (fflate) are chunks loaded on first use.
 * No framework: the pages are pre-rendered HTML, and the scripts only enhance them.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import type { AssetUrls } from './html';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

/** Page scripts by name; a page names its script in its PageSpec. */
export const ENTRIES = {
  home: here('./browser/home.ts'),
  skill: here('./browser/skill.ts'),
  proof: here('./browser/proof.ts'),
  recover: here('./browser/recover.ts'),
  purchases: here('./browser/purchases.ts'),
  'checkout-success': here('./browser/checkout-success.ts'),
} as const;

export interface BuiltAssets extends AssetUrls {
  /** Relative path under dist/public → content. */
  files: Map<string, Uint8Array>;
  /** Each output's imports by URL, static and dynamic: what loading it costs (budget.ts). */
  graph: Record<string, { static: string[]; dynamic: string[] }>;
}

/**
 * The x402 client (wallet-authorization.ts) as one file of its own, built apart: in the pages'
 * build, esbuild would share every viem module both it and wallet-buy.ts reach through viem's
 * barrels, and the ordinary purchase would download x402's half of viem too (115 KB gzip instead
 * of 69). wallet-buy.ts loads it by URL (X402_CLIENT_MODULE) only when a wallet has no ETH for gas or
 * the buyer chose "Paid when delivered" (x402's auth-capture, the escrow).
 */
const X402_CLIENT = here('./browser/wallet-authorization.ts');

const COMMON = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome109', 'firefox115', 'safari16'] as string[],
  minify: true,
  legalComments: 'none',
  write: false,
  metafile: true,
  outdir: '/assets',
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  logLevel: 'silent',
  // Paths in the metafile (and so the output) are relative to the repository, wherever the build runs from.
  absWorkingDir: here('../../'),
} as const;

/** Bundles the page scripts and the stylesheet; deterministic for the same sources. */
export async function buildAssets(): Promise<BuiltAssets> {
  const url = (outPath: string): string => `/assets/${outPath.split('/').pop()}`;
  // Split too, so that what viem itself loads lazily (e.g. its ENS and Tempo code) stays out of the client's file.
  const client = await build({ ...COMMON, entryPoints: { 'wallet-authorization': X402_CLIENT }, splitting: true });
  const clientOut = Object.entries(client.metafile.outputs).find(([, m]) => m.entryPoint && X402_CLIENT.endsWith(m.entryPoint));
  if (!clientOut) throw new Error('the x402 client was not built');
  const clientUrl = url(clientOut[0]);
  const out = await build({
    ...COMMON,
    entryPoints: { ...ENTRIES, site: here('./style.css') },
    splitting: true,
    define: { X402_CLIENT_MODULE: JSON.stringify(clientUrl) },
    external: ['/assets/*'],
  });
  const files = new Map<string, Uint8Array>();
  for (const f of [...client.outputFiles, ...out.outputFiles]) files.set(`assets/${f.path.split('/').pop()}`, f.contents);

  const scripts: Record<string, string> = {};
  const preloads: Record<string, string[]> = {};
  const graph: BuiltAssets['graph'] = {};
  let css = '';
  for (const [outPath, meta] of [...Object.entries(out.metafile.outputs), ...Object.entries(client.metafile.outputs)]) {
    if (outPath.endsWith('.css')) css = url(outPath);
    const entry = Object.entries(ENTRIES).find(([, src]) => meta.entryPoint && src.endsWith(meta.entryPoint));
    if (entry) {
      scripts[entry[0]] = url(outPath);
      preloads[entry[0]] = meta.imports.filter((i) => i.kind === 'import-statement').map((i) => url(i.path));
    }
    graph[url(outPath)] = {
      static: meta.imports.filter((i) => i.kind === 'import-statement').map((i) => url(i.path)),
      dynamic: meta.imports.filter((i) => i.kind === 'dynamic-import').map((i) => url(i.path)),
    };
  }
  // wallet-buy.ts imports the x402 client by its URL: an edge of the graph esbuild did not see.
  const walletBuy = Object.keys(graph).find((u) => u.startsWith('/assets/wallet-buy-'));
  if (!walletBuy) throw new Error('the wallet purchase was not built');
  graph[walletBuy]!.dynamic.push(clientUrl);
  if (!css) throw new Error('the storefront stylesheet was not built');
  return { files, css, scripts, preloads, graph };
}
