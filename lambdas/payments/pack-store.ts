import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SealedPack } from '#shared/catalog-types';
import { SEALED_DATA_DIR } from '#shared/data-dirs';

export interface PackStore {
  get(skillId: string): SealedPack | undefined;
}

/** Sealed packs from the payments bundle's private copy (dist/sealed locally), read once. */
export function filePackStore(dir: string = SEALED_DATA_DIR): PackStore {
  let packs: Record<string, SealedPack> | undefined;
  return {
    get(skillId) {
      packs ??= JSON.parse(readFileSync(join(dir, 'packs.json'), 'utf8')) as Record<string, SealedPack>;
      return Object.hasOwn(packs, skillId) ? packs[skillId] : undefined;
    },
  };
}
