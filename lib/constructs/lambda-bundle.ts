import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync, type BuildOptions } from 'esbuild';
import type { DataDir } from '../../lambdas/contract/env';

/**
 * esbuild's options for a Lambda bundle, measured with `npm run bench:cold` (docs/PERFORMANCE.md):
 * - ESM with code splitting: what a Lambda entry loads with `import()` (its wiring: adapters,
 *   the AWS SDK, viem, stripe; the SSM client; the credential providers the runtime's
 *   environment credentials make unnecessary) goes to chunks of its own, so a cold start parses
 *   only what every request needs and the rest on first use.
 * - The AWS SDK is bundled, not loaded from the runtime's copy: one tree-shaken file imports in
 *   0.6 to 0.75 of the time the runtime's many separate files take, and the bundle runs the SDK
 *   version the tests ran.
 * - Minified, with source maps (NODE_OPTIONS=--enable-source-maps), as stack traces in the logs
 *   should name our files.
 */
export const LAMBDA_ESBUILD_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  minify: true,
  sourcemap: true,
  splitting: true,
  mainFields: ['module', 'main'],
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  // Some CommonJS dependencies call require(); an ESM bundle needs it defined.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
} as const satisfies BuildOptions;

/**
 * Bundles one Lambda entry into `outdir` (`index.mjs`, its chunks, source maps) and copies the
 * built data directories beside it: the catalog travels inside the bundle, read at cold start.
 */
export function bundleLambda(entry: string, outdir: string, data: readonly { dir: DataDir; from: string }[] = []): void {
  buildSync({ ...LAMBDA_ESBUILD_OPTIONS, entryPoints: { index: entry }, outdir });
  for (const d of data) cpSync(d.from, join(outdir, d.dir), { recursive: true });
}
