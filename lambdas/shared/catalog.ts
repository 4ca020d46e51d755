/** The catalog as every domain sees it: a read-only port over the built catalog data. */
import type { CatalogEntry, PackMeta } from './catalog-types';
import type { SkillHit } from './skill-search';

export interface Catalog {
  /** All skills, sorted by id. */
  readonly entries: readonly CatalogEntry[];
  readonly categories: readonly string[];
  get(id: string): CatalogEntry | undefined;
  packMeta(id: string): PackMeta | undefined;
  search(query: string): SkillHit[];
  /** The free evaluation material of a skill: the outline document and the sample Markdown. */
  evaluation(id: string): { outline: Record<string, unknown>; sample: string } | undefined;
  /** The canary, the ten featured x402 resources and the card prices, from the price source. */
  readonly pricing: { canary: string; x402Resources: readonly string[]; cardCents: Readonly<Record<string, number>> };
}

/** A catalog entry with its paths made absolute for this deployment (API answers; the static file keeps paths). */
export function absoluteEntry(entry: CatalogEntry, baseUrl: string): CatalogEntry {
  return {
    ...entry,
    x402: { ...entry.x402, resource: `${baseUrl}${entry.x402.resource}` },
    outline: `${baseUrl}${entry.outline}`,
    sample: `${baseUrl}${entry.sample}`,
  };
}
