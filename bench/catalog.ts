/**
 * Issue 3 figures: intent search latency in process (the catalog function's own work) and
 * recall@3 of the labeled set.
 * Usage: npx tsx bench/catalog.ts
 */
import { readFileSync } from 'node:fs';
import { loadCatalogFiles } from '../lambdas/catalog/adapters/catalog-files';
import { buildSite } from '../catalog/build';
import { percentile } from './harness';

await buildSite();
const catalog = loadCatalogFiles();
const queries = (JSON.parse(readFileSync('test/fixtures/intent-queries.json', 'utf8')) as { queries: { q: string; expect: string }[] })
  .queries;

// Search latency: warm up, then time every query 40 times.
for (const { q } of queries) catalog.search(q);
const times: number[] = [];
for (let round = 0; round < 40; round++) {
  for (const { q } of queries) {
    const t = performance.now();
    catalog.search(q);
    times.push(performance.now() - t);
  }
}
times.sort((a, b) => a - b);
const recall =
  queries.filter(({ q, expect }) =>
    catalog
      .search(q)
      .slice(0, 3)
      .some((h) => h.id === expect),
  ).length / queries.length;

console.log('| measure | value |\n|---|---|');
console.log(
  `| intent search over 250 skills, in process (${times.length} searches) | p50 ${percentile(times, 50).toFixed(3)} ms, p99 ${percentile(times, 99).toFixed(3)} ms |`,
);
console.log(`| recall@3, ${queries.length} labeled queries (test/fixtures/intent-queries.json) | ${recall.toFixed(2)} |`);
