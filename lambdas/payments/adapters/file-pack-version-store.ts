import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseVersionRecord, VERSION_DIGEST, versionObjectKey } from '../../contract/pack-versions';
import { versionsDataDir } from '../../platform/data-dirs';
import type { PackVersionStore } from '../ports';

/**
 * The version store as the local run has it: dist/versions, the tree the deploy copies into the
 * versions bucket. A record whose pack does not hash to its name is not returned.
 */
export function filePackVersionStore(dir: string = versionsDataDir()): PackVersionStore {
  return {
    async get(digest) {
      if (!VERSION_DIGEST.test(digest)) return undefined;
      let text: string;
      try {
        text = await readFile(join(dir, versionObjectKey(digest)), 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
      return parseVersionRecord(text, digest);
    },
  };
}
