/** Natural-language skill search over the prebuilt index (format and options: contract/search-index.ts). */
import type MiniSearch from 'minisearch';
import type { SearchDocument } from '../contract/search-index';
import type { SkillHit } from './ports';

export function searchSkills(index: MiniSearch<SearchDocument>, query: string): SkillHit[] {
  return index.search(query).map((r) => ({ id: String(r.id), score: Math.round(r.score * 1000) / 1000, matched: r.match }));
}
