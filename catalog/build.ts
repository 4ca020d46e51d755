/**
 * The site build: writes the public static tree (dist/public) that CDK deploys to the S3
 * origin and the local server serves. Runs in `npm start`, `npm test` and `cdk synth`.
 */
import { fileURLToPath } from 'node:url';
import { PUBLIC_DIR } from '../lib/static-assets';
import { readTree, writeTree } from './write-tree';

const SITE_SOURCES = fileURLToPath(new URL('./site', import.meta.url));

/** Brings dist/public up to date; safe to run while a server reads it. */
export function buildSite(outDir: string = PUBLIC_DIR): void {
  writeTree(outDir, readTree(SITE_SOURCES));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildSite();
  console.log(`site written to ${PUBLIC_DIR}`);
}
