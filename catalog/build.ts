/**
 * The site build: writes the public static tree (dist/public) that CDK deploys to the S3
 * origin and the local server serves. Runs in `npm start`, `npm test` and `cdk synth`.
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PUBLIC_DIR } from '../lib/static-assets';

const SITE_SOURCES = fileURLToPath(new URL('./site', import.meta.url));

/** Rebuilds dist/public from scratch so nothing stale is ever deployed. */
export function buildSite(outDir: string = PUBLIC_DIR): void {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  cpSync(SITE_SOURCES, outDir, { recursive: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildSite();
  console.log(`site written to ${PUBLIC_DIR}`);
}
