import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SealedPack } from '../../contract/catalog-data';
import { sealedDataDir } from '../../platform/data-dirs';
import type { PackStore } from '../ports';

/** Sealed packs from the payments bundle's private copy (dist/sealed locally), read once. */
export function filePackStore(dir: string = sealedDataDir()): PackStore {
  let packs: Record<string, SealedPack> | undefined;
  return {
    get(skillId) {
      packs ??= JSON.parse(readFileSync(join(dir, 'packs.json'), 'utf8')) as Record<string, SealedPack>;
      return Object.hasOwn(packs, skillId) ? packs[skillId] : undefined;
    },
  };
}
