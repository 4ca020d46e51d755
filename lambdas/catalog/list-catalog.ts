import type { Catalog, CatalogPorts } from './ports';
import { absoluteEntry } from './skill-card';
import { cheapestFirst } from '../contract/catalog-data';
import { createHash } from 'node:crypto';
import { links } from '../contract/links';
import { invalidRequest, type AppError } from '../platform/errors';
import { lruPerOwner } from '../platform/memo';
import { jsonText, type ApiRequest, type ApiResponse } from '../platform/http';
import { optionalNumber, optionalString } from '../platform/query';

export const CATALOG_LIMIT = { fallback: 20, min: 1, max: 100 } as const;
export const MAX_QUERY_LENGTH = 200;

/** The query parameters /api/catalog reads; any other is refused (400), never ignored. */
export const CATALOG_PARAMETERS = ['q', 'category', 'max_price', 'limit', 'cursor'] as const;

/**
 * Paging parameters of other APIs (offsets, page numbers, other standards' tokens and sizes), each
 * with the parameter that does its work here: an agent that guesses one is told which to use.
 */
const PAGING_ALIASES: Readonly<Record<string, 'cursor' | 'limit'>> = {
  offset: 'cursor',
  skip: 'cursor',
  start: 'cursor',
  page: 'cursor',
  page_token: 'cursor',
  pageToken: 'cursor',
  next_cursor: 'cursor',
  nextCursor: 'cursor',
  after: 'cursor',
  starting_after: 'cursor',
  'page[cursor]': 'cursor',
  'page[after]': 'cursor',
  'page[number]': 'cursor',
  'page[offset]': 'cursor',
  page_size: 'limit',
  pageSize: 'limit',
  per_page: 'limit',
  size: 'limit',
  count: 'limit',
  'page[size]': 'limit',
  'page[limit]': 'limit',
};

/**
 * The catalog is immutable for the life of a process, so an answer depends only on the
 * query and the base URL: serialised answers are kept (at most 500, about 8 MB) instead of
 * rebuilding the same 16 KB of JSON for every request.
 */
const answers = lruPerOwner<Catalog, string>(500);

/** The filters a cursor carries, so `?cursor=` alone continues the same answer. */
interface Filters {
  q: string | undefined;
  category: string | undefined;
  maxPrice: number | undefined;
}

/**
 * A cursor: opaque to the caller (base64url JSON here) and made only by this route. It holds the
 * position of the next result, the filters, and a short fingerprint of the catalog it was cut
 * from, so a cursor carried across a deploy that changed the catalog is refused, not served shifted.
 */
interface CursorState extends Filters {
  offset: number;
  catalog: string;
}

const fingerprints = new WeakMap<Catalog, string>();
/** Ids and current prices (the order without a query, and the search's index, follow from them). */
function fingerprintOf(catalog: Catalog): string {
  let f = fingerprints.get(catalog);
  if (f === undefined) {
    const hash = createHash('sha256');
    for (const e of catalog.entries) hash.update(`${e.id}:${e.price_usd};`);
    f = hash.digest('base64url').slice(0, 10);
    fingerprints.set(catalog, f);
  }
  return f;
}

const encodeCursor = (c: CursorState): string =>
  Buffer.from(JSON.stringify({ v: 1, o: c.offset, q: c.q ?? null, c: c.category ?? null, p: c.maxPrice ?? null, k: c.catalog })).toString(
    'base64url',
  );

const badCursor = (why: string): AppError =>
  invalidRequest(
    'cursor',
    `\`cursor\` ${why}`,
    'Pass `next_cursor` from the previous answer as it was given, or leave `cursor` out to start from the first page.',
  );

function decodeCursor(raw: string, catalog: Catalog): CursorState {
  let v: unknown;
  try {
    v = /^[A-Za-z0-9_-]{1,1000}$/.test(raw) ? JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) : undefined;
  } catch {
    v = undefined;
  }
  const c = v as { v?: unknown; o?: unknown; q?: unknown; c?: unknown; p?: unknown; k?: unknown } | undefined;
  const nullOr = (x: unknown, type: 'string' | 'number'): boolean => x === null || typeof x === type;
  if (
    typeof c !== 'object' ||
    c === null ||
    c.v !== 1 ||
    typeof c.o !== 'number' ||
    !Number.isInteger(c.o) ||
    c.o < 1 ||
    c.o >= catalog.entries.length ||
    !nullOr(c.q, 'string') ||
    !nullOr(c.c, 'string') ||
    !nullOr(c.p, 'number') ||
    typeof c.k !== 'string'
  ) {
    throw badCursor('is not one this service issued.');
  }
  if (c.k !== fingerprintOf(catalog)) throw badCursor('was issued for an earlier catalog, which has changed since.');
  return {
    offset: c.o,
    q: (c.q as string | null) ?? undefined,
    category: (c.c as string | null) ?? undefined,
    maxPrice: (c.p as number | null) ?? undefined,
    catalog: c.k,
  };
}

/** `limit` as asked: a whole number of at least 1 (over the largest page is not an error). */
function askedLimit(req: ApiRequest): number {
  const raw = req.query['limit'];
  if (raw === undefined) return CATALOG_LIMIT.fallback;
  const v = /^\d{1,9}$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!(v >= CATALOG_LIMIT.min)) {
    throw invalidRequest(
      'limit',
      `\`limit\` must be a whole number of at least ${CATALOG_LIMIT.min} (a page holds up to ${CATALOG_LIMIT.max}), got "${raw.slice(0, 40)}".`,
      `Leave it out for the default of ${CATALOG_LIMIT.fallback}; follow \`next_cursor\` for more.`,
    );
  }
  return v;
}

/** Refuses a parameter this route does not read, naming the one that does that work. */
function refuseUnknownParameters(req: ApiRequest): void {
  for (const name of Object.keys(req.query)) {
    if ((CATALOG_PARAMETERS as readonly string[]).includes(name)) continue;
    const instead = PAGING_ALIASES[name];
    if (instead === 'cursor') {
      throw invalidRequest(
        name,
        `\`${name}\` is not a parameter of /api/catalog: it pages with \`cursor\`.`,
        'Each answer has `next_cursor` (null on the last page) and `next`, its URL: GET /api/catalog?cursor=<next_cursor> gives the next page of the same query.',
      );
    }
    if (instead === 'limit') {
      throw invalidRequest(
        name,
        `\`${name}\` is not a parameter of /api/catalog: the page size is \`limit\` (${CATALOG_LIMIT.min}–${CATALOG_LIMIT.max}, default ${CATALOG_LIMIT.fallback}).`,
        'Example: /api/catalog?limit=100, then follow `next_cursor`.',
      );
    }
    throw invalidRequest(
      name.slice(0, 60),
      `\`${name.slice(0, 60)}\` is not a parameter of /api/catalog.`,
      `It reads ${CATALOG_PARAMETERS.map((p) => `\`${p}\``).join(', ')}: GET /api/openapi.json describes them.`,
    );
  }
}

/**
 * GET /api/catalog: filter by category and max_price (USD, the current price), optionally
 * rank by relevance to `q`; without `q`, cheapest first. `total` counts every match; a page holds
 * at most `limit` of them from the cursor's position, and `next_cursor` continues the same answer.
 */
export function listCatalog(req: ApiRequest, { catalog }: Pick<CatalogPorts, 'catalog'>): ApiResponse {
  refuseUnknownParameters(req);
  const rawCursor = optionalString(req, 'cursor', { maxLength: 1000 });
  const given: Filters = {
    q: optionalString(req, 'q', { maxLength: MAX_QUERY_LENGTH }),
    category: optionalString(req, 'category', { maxLength: 60 }),
    maxPrice: optionalNumber(req, 'max_price', { min: 0, max: 1_000_000, unit: 'USD', example: '0.5' }),
  };
  // A limit over the largest page is served as the largest page (AIP-158's rule), and the answer says so.
  const asked = askedLimit(req);
  const limit = Math.min(asked, CATALOG_LIMIT.max);
  const cursor = rawCursor === undefined ? undefined : decodeCursor(rawCursor, catalog);
  if (cursor) {
    // The cursor carries its query; one given beside it must be the same.
    const differs = (['q', 'category', 'maxPrice'] as const).find((k) => given[k] !== undefined && given[k] !== cursor[k]);
    if (differs) throw badCursor(`was issued for another query: \`${differs === 'maxPrice' ? 'max_price' : differs}\` differs.`);
  }
  const { q, category, maxPrice } = cursor ?? given;
  const offset = cursor?.offset ?? 0;
  if (category !== undefined && !catalog.categories.includes(category)) {
    throw invalidRequest('category', `Unknown category "${category}".`, `Use one of: ${catalog.categories.join(', ')}.`);
  }
  const cache = answers(catalog);
  const key = JSON.stringify([req.baseUrl, q, category, maxPrice, limit, offset, asked > limit ? asked : 0]);
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

  const results = ranked.slice(offset, offset + limit).map((h) => ({
    ...absoluteEntry(catalog.get(h.id)!, req.baseUrl),
    ...(h.score !== undefined ? { score: h.score, matched: h.matched } : {}),
  }));
  const nextCursor =
    offset + limit < ranked.length
      ? encodeCursor({ offset: offset + limit, q, category, maxPrice, catalog: fingerprintOf(catalog) })
      : null;
  const body = JSON.stringify({
    ok: true,
    query: { q: q ?? null, category: category ?? null, max_price: maxPrice ?? null, limit },
    order: q ? 'relevance' : 'price_ascending',
    total: ranked.length,
    count: results.length,
    results,
    next_cursor: nextCursor,
    next: nextCursor === null ? null : `${links(req.baseUrl).catalog}?cursor=${encodeURIComponent(nextCursor)}&limit=${limit}`,
    ...(asked > limit
      ? {
          note: `limit ${asked} is over the largest page, ${CATALOG_LIMIT.max}: this page holds up to ${CATALOG_LIMIT.max}; next_cursor gives the rest.`,
        }
      : {}),
  });
  cache.set(key, body);
  return jsonText(200, body);
}
