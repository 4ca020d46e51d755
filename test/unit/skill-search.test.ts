import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { processTerm, stem } from '../../lambdas/contract/search-index';

const queries = (JSON.parse(readFileSync('test/fixtures/intent-queries.json', 'utf8')) as { queries: { q: string; expect: string }[] })
  .queries;

describe('skill search', () => {
  const catalog = loadCatalogFiles();

  it('stems the common English suffixes to one term', () => {
    expect(['clean', 'cleaning', 'cleaned', 'cleaner'].map(stem)).toEqual(['clean', 'clean', 'clean', 'clean']);
    expect(stem('access')).toBe('access');
    expect(stem('policies')).toBe('policy');
    expect(processTerm('The')).toBeNull();
  });

  it('every labeled query names a real skill', () => {
    for (const { expect: id } of queries) expect(catalog.get(id), id).toBeDefined();
  });

  it('finds the wanted skill in the top 3 for at least 90% of plain-language needs (recall@3)', () => {
    const hits = queries.filter(({ q, expect: id }) =>
      catalog
        .search(q)
        .slice(0, 3)
        .some((h) => h.id === id),
    ).length;
    expect(hits / queries.length).toBeGreaterThanOrEqual(0.9);
  });

  it('reports which fields each query term matched', () => {
    const [top] = catalog.search('csv cleaner');
    expect(top?.id).toBe('csv-cleaner');
    expect(Object.values(top!.matched).flat()).toContain('name');
  });
});
