import type { Catalog } from './ports';
import type { CatalogEntry } from '../contract/catalog-data';
import { notFound } from '../platform/errors';
import { skillRequired } from './errors';

/** Resolves a skill id from a request: missing → 400 SKILL_REQUIRED, unknown → 404 not_found. */
export function requireSkill(catalog: Catalog, raw: string | undefined, where = 'query parameter `skill`'): CatalogEntry {
  const id = raw?.trim();
  if (!id) throw skillRequired(where);
  const entry = id.length <= 100 ? catalog.get(id) : undefined;
  if (!entry) throw notFound(`Unknown skill "${id.slice(0, 100)}".`, 'GET /catalog.json or /api/catalog?q=… lists the skill ids.');
  return entry;
}
