import type { Catalog, CatalogPorts } from './ports';
import { absoluteEntry } from './skill-card';
import { cheapestFirst } from '../contract/catalog-data';
import { invalidRequest } from '../platform/errors';
import { lruPerOwner } from '../platform/memo';
import { jsonText, type ApiRequest, type ApiResponse } from '../platform/http';
import { optionalInteger, optionalNumber, optionalString } from '../platform/query';

export const CATALOG_LIMIT = { fallback: 20, min: 1, max: 100 } as const;
export const MAX_QUERY_LENGTH = 200;

/**
 * The catalog is immutable for the life of a process, so an answer depends only on the
 * query and the base URL: serialised answers are kept (at most 500, about 8 MB) instead of
 * rebuilding the same 16 KB of JSON for every request.
 */
const answers = lruPerOwner<Catalog, string>(500);

/**
 * GET /api/catalog: filter by category and max_price (USD, the current price), optionally
 * rank by relevance to `q`; without `q`, cheapest first. `total` counts every match before `limit`.
 */
export function listCatalog(req: ApiRequest, { catalog }: Pick<CatalogPorts, 'catalog'>): ApiResponse {
  const q = optionalString(req, 'q', { maxLength: MAX_QUERY_LENGTH });
  const category = optionalString(req, 'category', { maxLength: 60 });
  const maxPrice = optionalNumber(req, 'max_price', { min: 0, max: 1_000_000, unit: 'USD', example: '0.5' });
  const limit = optionalInteger(req, 'limit', { min: CATALOG_LIMIT.min, max: CATALOG_LIMIT.max, fallback: CATALOG_LIMIT.fallback });
  if (category !== undefined && !catalog.categories.includes(category)) {
    throw invalidRequest('category', `Unknown category "${category}".`, `Use one of: ${catalog.categories.join(', ')}.`);
  }
  const cache = answers(catalog);
  const key = JSON.stringify([req.baseUrl, q, category, maxPrice, limit]);
  const cached = cache.get(key);
  if (cached !== undefined) return jsonText(200, cached);

  const keep = (id: string): boolean => {
    const e = catalog.get(id);
    return (
      e !== undefined && (category === undefined || e.category === category) && (maxPrice === undefined || e.price_usd <= maxPrice + 1e-12)
    );
  };
  const ranked = q
    ? catalog.search(q).filter((h) => keep(h.id))
    : catalog.entries
        .filter((e) => keep(e.id))
        .sort(cheapestFirst)
        .map((e) => ({ id: e.id, score: undefined, matched: undefined }));

  const results = ranked.slice(0, limit).map((h) => ({
    ...absoluteEntry(catalog.get(h.id)!, req.baseUrl),
    ...(h.score !== undefined ? { score: h.score, matched: h.matched } : {}),
  }));
  const body = JSON.stringify({
    ok: true,
    query: { q: q ?? null, category: category ?? null, max_price: maxPrice ?? null, limit },
    order: q ? 'relevance' : 'price_ascending',
    total: ranked.length,
    count: results.length,
    results,
  });
  cache.set(key, body);
  return jsonText(200, body);
}
