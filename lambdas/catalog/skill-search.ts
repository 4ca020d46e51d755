/** Natural-language skill search over the prebuilt index (format and options: contract/search-index.ts). */
import type MiniSearch from 'minisearch';
import { indexTerm, processTerm, tokenize, type SearchDocument } from '../contract/search-index';
import type { SkillHit } from './ports';

/**
 * Ranks skills for a query. Stop words ("agent", "the", "skills") are dropped when the query
 * has other words; a query made only of stop words is searched with them kept, because
 * coming back empty for "agent" in a marketplace of agent skills helps nobody.
 */
export function searchSkills(index: MiniSearch<SearchDocument>, query: string): SkillHit[] {
  const onlyStopWords = tokenize(query).every((t) => processTerm(t) === null);
  const results = onlyStopWords ? index.search(query, { processTerm: indexTerm }) : index.search(query);
  return results.map((r) => ({ id: String(r.id), score: Math.round(r.score * 1000) / 1000, matched: r.match }));
}
