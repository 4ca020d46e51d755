import type { Catalog } from './ports';

/**
 * The public face of the catalog domain: the read-only catalog model every other domain
 * uses (the port, how skills are presented, how a skill id is resolved and searched).
 * Nothing else of the catalog domain is imported from outside it (the linter holds this).
 */
export type { Catalog, SkillHit } from './ports';
export { absoluteEntry, rankSkills, skillCard } from './skill-card';
export { requireSkill } from './skill-param';
export { packMetadataDocument } from './get-pack-metadata';
export { CATALOG_ERRORS, skillRequired } from './errors';

/**
 * The built catalog this bundle carries (loaded once per process), for another function's
 * composition: the catalog's wiring loads with the first call, never at a cold start that does
 * not need it.
 */
export const catalogFromEnv = async (): Promise<Catalog> => (await import('./wiring')).catalogFromEnv();
