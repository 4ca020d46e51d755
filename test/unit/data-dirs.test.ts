import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOG_DIR, DIST_DIR, PUBLIC_DIR, SEALED_DIR, VERSIONS_DIST_DIR } from '../../lambdas/contract/data-dirs';
import { catalogDataDir, sealedDataDir, versionsDataDir } from '../../lambdas/platform/data-dirs';

describe('the built trees', () => {
  it('all live under the repository root dist/, where the build writes and CDK and the edge read', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    expect(DIST_DIR).toBe(join(root, 'dist'));
    for (const dir of [PUBLIC_DIR, CATALOG_DIR, SEALED_DIR]) expect(dirname(dir)).toBe(DIST_DIR);
  });

  it('are read from the bundle a Lambda carries when the stack names it, else from dist/', () => {
    expect(catalogDataDir({})).toBe(CATALOG_DIR);
    expect(sealedDataDir({})).toBe(SEALED_DIR);
    expect(catalogDataDir({ CATALOG_DATA_DIR: '/var/task/catalog' })).toBe('/var/task/catalog');
    expect(sealedDataDir({ SEALED_DATA_DIR: '/var/task/sealed' })).toBe('/var/task/sealed');
  });

  it('the local version store is dist/versions unless VERSIONS_DATA_DIR points at another (a test’s rebuilt copy)', () => {
    expect(versionsDataDir({})).toBe(VERSIONS_DIST_DIR);
    expect(versionsDataDir({ VERSIONS_DATA_DIR: '/tmp/rebuilt/versions' })).toBe('/tmp/rebuilt/versions');
  });
});
