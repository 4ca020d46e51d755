/**
 * The catalog build as `npm start` runs it (local/run.mjs): in a worker thread, so that what it
 * reads and renders (250 packs, the security scan, the eval suite) is freed with the worker
 * instead of staying in the server's heap: ~40 MB of resident memory (docs/PERFORMANCE.md).
 * Skipped when nothing it reads or writes changed since its last run (site-stamps.ts): the
 * launcher passes where that record lives and which bundle runs. The build itself is imported
 * only when it runs. Exits 1 with the catalog's own message when the catalog is invalid.
 */
import { workerData } from 'node:worker_threads';
import { recordSite, siteIsCurrent } from './site-stamps';

const given = workerData as { recordFile?: string; buildId?: string } | undefined;
const record = given?.recordFile && given.buildId ? { file: given.recordFile, buildId: given.buildId } : undefined;

if (!record || !siteIsCurrent(record.file, record.buildId)) {
  const { buildSite, CatalogError } = await import('../catalog/build');
  try {
    await buildSite();
    if (record) recordSite(record.file, record.buildId);
  } catch (e) {
    if (!(e instanceof CatalogError)) throw e;
    console.error(e.message);
    process.exit(1);
  }
}
