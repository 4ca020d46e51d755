/**
 * Whether the catalog build's output is already what a build would write, so that `npm start`
 * can skip it (about 2 s, most of it esbuild bundling viem for the storefront's browser code).
 *
 * The build is a function of files only (no environment): the authored catalog under catalog/
 * (skills, prices, the storefront's sources and stylesheet), the packages it bundles for the
 * browser (package-lock.json), and the code it runs, which the launcher identifies by its bundle
 * (`buildId`: any source change makes a new bundle). It writes only the three data directories.
 * A record of every input's and output's size and modification time, and of each directory's (a
 * file added or removed changes its directory's), taken after a build, says whether anything
 * moved since: an output edited or deleted by hand is rebuilt too.
 */
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOG_DATA_DIR, PUBLIC_DIR, SEALED_DATA_DIR } from '../lambdas/contract/data-dirs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** What the catalog build reads and writes (besides its code): recorded together. */
export const SITE_PATHS: readonly string[] = [
  join(root, 'catalog'),
  join(root, 'package-lock.json'),
  PUBLIC_DIR,
  CATALOG_DATA_DIR,
  SEALED_DATA_DIR,
];

/** Size and modification time of every file and directory under `paths` ("-" for a missing path), in a stable order. */
export function treeStamps(paths: readonly string[]): Record<string, string> {
  const stamps: Record<string, string> = {};
  const visit = (path: string): void => {
    let s;
    try {
      s = statSync(path);
    } catch {
      stamps[path] = '-';
      return;
    }
    stamps[path] = `${s.size}:${s.mtimeMs}`;
    if (s.isDirectory()) for (const name of readdirSync(path).sort()) visit(join(path, name));
  };
  for (const p of paths) visit(p);
  return stamps;
}

interface SiteRecord {
  buildId: string;
  stamps: Record<string, string>;
}

/** Whether the record in `file` was taken for this code and still matches every input and output. */
export function siteIsCurrent(file: string, buildId: string, paths: readonly string[] = SITE_PATHS): boolean {
  let record: SiteRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as SiteRecord;
  } catch {
    return false;
  }
  return record.buildId === buildId && JSON.stringify(record.stamps) === JSON.stringify(treeStamps(paths));
}

/** Records the inputs and outputs as they are after a build (written whole, then renamed into place). */
export function recordSite(file: string, buildId: string, paths: readonly string[] = SITE_PATHS): void {
  const record: SiteRecord = { buildId, stamps: treeStamps(paths) };
  const tmp = join(dirname(file), `.site-${process.pid}-${Date.now()}.tmp`);
  writeFileSync(tmp, JSON.stringify(record));
  renameSync(tmp, file);
}
