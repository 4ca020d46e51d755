/**
 * Issue 3 figures: intent search latency in process, GET /api/catalog throughput through
 * the local server next to a plain node:http server returning a fixed JSON of the same size
 * (each server in its own process, loopback only, bounded), and recall@3 of the labeled set.
 * Usage: npx tsx bench/catalog.ts [seconds=10]
 */
import { readFileSync } from 'node:fs';
import { loadCatalogFiles } from '../lambdas/catalog/adapters/catalog-files';
import { buildSite } from '../catalog/build';
import { load, percentile, startFixed, startMarket } from './harness';

const seconds = Number(process.argv[2] ?? '10');
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

const path = '/api/catalog?max_price=1&limit=20';
const market = await startMarket();
let marketRun, fixedRun, bytes;
try {
  const body = await (await fetch(`${market.url}${path}`)).text();
  bytes = Buffer.byteLength(body);
  const fixed = await startFixed(body);
  try {
    await load(`${market.url}${path}`, { seconds: 2, connections: 10 }); // warm-up
    marketRun = await load(`${market.url}${path}`, { seconds, connections: 10 });
    fixedRun = await load(`${fixed.url}${path}`, { seconds, connections: 10 });
  } finally {
    await fixed.stop();
  }
} finally {
  await market.stop();
}

console.log('| measure | value |\n|---|---|');
console.log(
  `| intent search over 250 skills, in process (${times.length} searches) | p50 ${percentile(times, 50).toFixed(3)} ms, p99 ${percentile(times, 99).toFixed(3)} ms |`,
);
console.log(`| recall@3, ${queries.length} labeled queries (test/fixtures/intent-queries.json) | ${recall.toFixed(2)} |`);
console.log(
  `| GET ${path} through the local server (${bytes} B, 10 connections, ${seconds} s) | ${marketRun.rps.toFixed(0)} req/s, p50 ${marketRun.p50} ms, p99 ${marketRun.p99} ms, ${marketRun.non2xx} non-2xx |`,
);
console.log(`| plain node:http, same bytes | ${fixedRun.rps.toFixed(0)} req/s, p50 ${fixedRun.p50} ms, p99 ${fixedRun.p99} ms |`);
console.log(`| ratio local server / plain | ${(marketRun.rps / fixedRun.rps).toFixed(2)} |`);
