import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalog } from '../ports';
import type { CatalogEntry, PackMeta, PricingData } from '../../contract/catalog-data';
import type { PackVersionMeta } from '../../contract/pack-versions';
import { catalogDataDir } from '../../platform/data-dirs';
import { loadSearchIndex } from '../../contract/search-index';
import { searchSkills } from '../skill-search';

const cache = new Map<string, Catalog>();

/** Loads the built catalog (entries, pack metadata, prices) once per process; the search index on first search. */
export function loadCatalogFiles(dir: string = catalogDataDir()): Catalog {
  const hit = cache.get(dir);
  if (hit) return hit;
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
  const entries = JSON.parse(read('entries.json')) as CatalogEntry[];
  const packs = JSON.parse(read('packs.json')) as Record<string, PackMeta>;
  const pricing = JSON.parse(read('pricing.json')) as PricingData;
  // Built on the first search: most functions never search, and rebuilding the index is the
  // costliest part of loading the catalog (issue 14).
  let index: ReturnType<typeof loadSearchIndex> | undefined;
  const byId = new Map(entries.map((e) => [e.id, e]));
  // The versions index (every version of every pack, with its files' hashes) is read when a
  // delivery or a listing first asks: most requests never do, and a cold start does not parse it.
  let versions: Record<string, PackVersionMeta[]> | undefined;
  let evaluation: Record<string, { outline: Record<string, unknown>; sample: string }> | undefined;
  const catalog: Catalog = {
    entries,
    categories: [...new Set(entries.map((e) => e.category))].sort(),
    get: (id) => byId.get(id),
    packMeta: (id) => (Object.hasOwn(packs, id) ? packs[id] : undefined),
    versions: (id) => {
      versions ??= JSON.parse(read('versions.json')) as Record<string, PackVersionMeta[]>;
      return Object.hasOwn(versions, id) ? versions[id] : undefined;
    },
    search: (q) => searchSkills((index ??= loadSearchIndex(read('search-index.json'))), q),
    evaluation: (id) => {
      evaluation ??= JSON.parse(read('evaluation.json')) as Record<string, { outline: Record<string, unknown>; sample: string }>;
      return Object.hasOwn(evaluation, id) ? evaluation[id] : undefined;
    },
    pricing: {
      canary: pricing.canary,
      x402Resources: pricing.x402_resources,
      cardCents: pricing.card_cents,
      plans: pricing.plans,
      meterMinTopUp: pricing.meter_min_top_up,
    },
  };
  cache.set(dir, catalog);
  return catalog;
}
