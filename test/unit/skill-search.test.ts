import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { processTerm, stem } from '../../lambdas/contract/search-index';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { listCatalog } from '../../lambdas/catalog/list-catalog';
import { toApiRequest } from '../../lambdas/platform/http';
import { apiEvent } from '../support/lambda-bundles';

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

describe('GET /api/catalog answers kept per page', () => {
  const catalog = loadCatalogFiles();
  const page = (base: string, query: string): { count: number; first: string } => {
    const req = toApiRequest(apiEvent('GET', '/api/catalog', query) as APIGatewayProxyEventV2, base);
    const body = JSON.parse(listCatalog(req, { catalog }).body as string) as { count: number; results: { outline: string }[] };
    return { count: body.count, first: body.results[0]!.outline };
  };

  it('keeps one answer per base URL, limit and filter: a kept page is never served for another', () => {
    for (let round = 0; round < 2; round++) {
      expect(page('https://a.example', '')).toMatchObject({ count: 20, first: expect.stringMatching(/^https:\/\/a\.example\//) });
      expect(page('https://b.example', '')).toMatchObject({ count: 20, first: expect.stringMatching(/^https:\/\/b\.example\//) });
      expect(page('https://a.example', 'limit=3').count).toBe(3);
      expect(page('https://a.example', 'limit=3&max_price=1000').count).toBe(3);
      expect(page('https://a.example', 'limit=2&q=csv').count).toBe(2);
    }
  });
});
