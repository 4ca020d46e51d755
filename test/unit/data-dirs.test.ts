import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOG_DATA_DIR, DIST_DIR, PUBLIC_DIR, SEALED_DATA_DIR } from '../../lambdas/contract/data-dirs';

describe('the built trees', () => {
  it('all live under the repository root dist/, where the build writes and CDK and the edge read', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    expect(DIST_DIR).toBe(join(root, 'dist'));
    for (const dir of [PUBLIC_DIR, CATALOG_DATA_DIR, SEALED_DATA_DIR]) expect(dirname(dir)).toBe(DIST_DIR);
  });
});
