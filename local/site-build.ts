/**
 * The catalog build as `npm start` runs it (local/run.mjs): in a worker thread, so that what it
 * reads and renders (250 packs, the security scan, the eval suite) is freed with the worker
 * instead of staying in the server's heap: ~40 MB of resident memory (docs/PERFORMANCE.md).
 * Exits 1 with the catalog's own message when the catalog is invalid.
 */
import { buildSite, CatalogError } from '../catalog/build';

try {
  await buildSite();
} catch (e) {
  if (!(e instanceof CatalogError)) throw e;
  console.error(e.message);
  process.exit(1);
}
