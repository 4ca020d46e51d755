/** The versions' provenance inputs the build wrote (dist/catalog/provenance-inputs.json), read once, on first use. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROVENANCE_INPUTS_FILE, type ProvenanceInputs } from '../../contract/provenance';
import type { ProvenanceInputSource } from '../ports';

export function fileProvenanceInputs(catalogDir: string): ProvenanceInputSource {
  let inputs: Promise<ProvenanceInputs> | undefined;
  const load = () =>
    (inputs ??= readFile(join(catalogDir, PROVENANCE_INPUTS_FILE), 'utf8').then(
      (text) => JSON.parse(text) as ProvenanceInputs,
      (e: unknown) => {
        inputs = undefined;
        throw e;
      },
    ));
  return {
    versions: async (skillId) => (Object.hasOwn(await load(), skillId) ? (await load())[skillId] : undefined),
  };
}
