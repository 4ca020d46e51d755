/** How a skill is presented in API answers: cards with every next link, and entries with absolute URLs. */
import type { CatalogEntry } from '../contract/catalog-data';
import { links } from '../contract/links';
import type { Catalog } from './ports';

/** A catalog entry with its paths made absolute for this deployment (API answers; the static file keeps paths). */
export function absoluteEntry(entry: CatalogEntry, baseUrl: string): CatalogEntry {
  return {
    ...entry,
    x402: { ...entry.x402, resource: `${baseUrl}${entry.x402.resource}` },
    outline: `${baseUrl}${entry.outline}`,
    sample: `${baseUrl}${entry.sample}`,
  };
}

/** A skill as every surface lists it (shelves, judges, search results): price and every link an agent needs next. */
export function skillCard(e: CatalogEntry, base: string) {
  const s = links(base).skill(e.id);
  return {
    skill_id: e.id,
    name: e.name,
    category: e.category,
    summary: e.summary,
    price_usd: e.price_usd,
    price_label: e.price_label,
    regular_price_usd: e.regular_price_usd,
    amount: e.x402.amount,
    outline: s.outline,
    sample: s.sample,
    cycle: s.cycle,
    pay: s.challenge,
  };
}

/** Search results as cards with score and matched fields: intent search, MCP and A2A answer with these. */
export function rankSkills(catalog: Catalog, query: string, limit: number, base: string) {
  const hits = catalog.search(query);
  return {
    total: hits.length,
    results: hits.slice(0, limit).map((h) => ({ ...skillCard(catalog.get(h.id)!, base), score: h.score, matched: h.matched })),
  };
}
