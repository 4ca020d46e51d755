/**
 * The search index format, shared by the catalog build (which creates and serialises the
 * index) and the catalog domain (which loads it at cold start): one set of MiniSearch options.
 * BM25 ranking, prefix and fuzzy matching, field boosts.
 */
import MiniSearch, { type Options } from 'minisearch';

/** The text of one skill that search sees; all of it is public (catalog entry and outline). */
export interface SearchDocument {
  id: string;
  name: string;
  tags: string;
  summary: string;
  category: string;
  body: string;
}

/** Words that carry no intent in a request such as "I need something to clean my CSV files". */
const STOP_WORDS = new Set(
  "a an and any are as at be by can could do for from get give have help how i i'm in into is it its me my need of on or our please some something that the their them this to tool using want way we what when which with would you your skill skills agent".split(
    ' ',
  ),
);

/** Suffixes the light stemmer strips, longest first; one per term. */
const SUFFIXES = ['ations', 'ation', 'ings', 'ing', 'ers', 'ies', 'ed', 'er', 's'] as const;

/**
 * A light suffix stemmer so "cleaning", "cleaned" and "cleaner" meet "clean" (MiniSearch has
 * none). It keeps at least three letters and never strips the "s" of "ss" ("access").
 */
export function stem(term: string): string {
  for (const suffix of SUFFIXES) {
    if (!term.endsWith(suffix) || term.length - suffix.length < 3) continue;
    if (suffix === 's' && term.endsWith('ss')) return term;
    const base = term.slice(0, -suffix.length);
    return suffix === 'ies' ? `${base}y` : base;
  }
  return term;
}

/**
 * How the index stores a term: lower case, stemmed, at least two letters. Stop words are kept
 * in the index (BM25 already weighs common words down), so that a query made only of them
 * can still match; see {@link processTerm}.
 */
export function indexTerm(term: string): string | null {
  const t = term.toLowerCase();
  return t.length < 2 ? null : stem(t);
}

/** How a query term is searched: as {@link indexTerm}, but stop words carry no intent and are dropped. */
export function processTerm(term: string): string | null {
  return STOP_WORDS.has(term.toLowerCase()) ? null : indexTerm(term);
}

/** Splits on anything but letters and digits, so "x402" and "csv-cleaner" tokenise sensibly. */
export const tokenize = (text: string): string[] => text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);

export const SEARCH_OPTIONS: Options<SearchDocument> = {
  fields: ['name', 'tags', 'summary', 'category', 'body'],
  storeFields: [],
  tokenize,
  processTerm: indexTerm,
  searchOptions: {
    processTerm,
    boost: { name: 4, tags: 3, summary: 2, category: 1, body: 1 },
    prefix: (term) => term.length >= 4,
    fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
    // One typo is what fuzzy is for here; distance 2 on long words doubled search time for no recall.
    maxFuzzy: 1,
    combineWith: 'OR',
  },
};

export function buildSearchIndex(docs: readonly SearchDocument[]): MiniSearch<SearchDocument> {
  const index = new MiniSearch<SearchDocument>(SEARCH_OPTIONS);
  index.addAll(docs);
  return index;
}

export function loadSearchIndex(json: string): MiniSearch<SearchDocument> {
  return MiniSearch.loadJSON<SearchDocument>(json, SEARCH_OPTIONS);
}
