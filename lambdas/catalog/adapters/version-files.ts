import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { versionsDataDir } from '../../platform/data-dirs';
import type { VersionFiles } from '../ports';

/** The versions a bundle carries: its copy of dist/versions (VERSIONS_DATA_DIR), keyed as in the bucket. */
export function versionFiles(dir: string = versionsDataDir()): VersionFiles {
  return {
    async keys() {
      const names = await readdir(join(dir, 'sha256'));
      return names.filter((n) => n.endsWith('.json')).map((n) => `sha256/${n}`);
    },
    async read(key) {
      return readFile(join(dir, key));
    },
  };
}
