/**
 * Issue 14, goal 3: the local server's warm path as a ratio to a plain node:http server sending
 * the same status, headers and bytes (each in its own process, loopback, 10 keep-alive
 * connections), on GET /api/pay (the 402 challenge) and GET /api/catalog. The market runs as
 * `npm start` does; the plain server replays the market's own answer, minus the per-connection
 * headers node:http writes itself (date, connection, keep-alive).
 * Usage: npx tsx bench/edge.ts [seconds=8]
 */
import { load, startFixed, startMarket } from './harness';

const seconds = Number(process.argv[2] ?? '8');
const PATHS = ['/api/pay?skill=agent-x402-first-buy', '/api/catalog'];
const OWN = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

const rows: string[] = [];
const market = await startMarket();
try {
  for (const path of PATHS) {
    const res = await fetch(`${market.url}${path}`);
    const body = await res.text();
    const headers: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      if (!OWN.has(key)) headers[key] = value;
    });
    const fixed = await startFixed(body, res.status, headers);
    try {
      await load(`${market.url}${path}`, { seconds: 2, connections: 10 }); // warm-up
      await load(`${fixed.url}${path}`, { seconds: 2, connections: 10 });
      const m = await load(`${market.url}${path}`, { seconds, connections: 10 });
      const f = await load(`${fixed.url}${path}`, { seconds, connections: 10 });
      rows.push(
        `| GET ${path} (${res.status}, ${Buffer.byteLength(body)} B, ${Object.keys(headers).length} headers) | ${(m.rps / f.rps).toFixed(2)} (${m.rps.toFixed(0)} vs ${f.rps.toFixed(0)} req/s; p50 ${m.p50} vs ${f.p50} ms) |`,
      );
    } finally {
      await fixed.stop();
    }
  }
} finally {
  await market.stop();
}
console.log(`| request | local server ÷ plain node:http, same bytes and headers |\n|---|---|\n${rows.join('\n')}`);
