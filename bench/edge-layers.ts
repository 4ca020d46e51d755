/**
 * Issue 14, goal 3: where the local server's CPU per request goes, layer by layer
 * (bench/edge-layers-server.ts: the floor, a plain handler, + middy, + the log context, the real
 * handler, + the event built per request, the edge). Each layer runs in its own process, built
 * with esbuild as `npm start` builds the server; autocannon (10 keep-alive connections) sends a
 * fixed number of requests and the server's user and system CPU time (/proc/<pid>/stat) is
 * divided by it. CPU per request, unlike requests per second, does not depend on how the load
 * generator shares this machine's cores.
 * Usage: npx tsx bench/edge-layers.ts [requests=60000] [layers=F,HN,HM,HP,H,HT,E]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { build } from 'esbuild';
import { buildSite } from '../catalog/build';
import { cpuTicks } from './harness';

const requests = Number(process.argv[2] ?? '60000');
const layers = (process.argv[3] ?? 'F,HN,HM,HP,H,HT,E').split(',');
const root = fileURLToPath(new URL('..', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'edge-layers-'));
await buildSite();
await build({
  entryPoints: [join(root, 'bench/edge-layers-server.ts')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outfile: join(out, 'server.mjs'),
  logLevel: 'error',
  external: ['esbuild', '@foundry-rs/*', 'dynalite', '@duckdb/*'],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});

async function measure(mode: string, path: string): Promise<string> {
  const port = 18_900 + Math.floor(Math.random() * 500);
  const child = spawn(process.execPath, [join(out, 'server.mjs'), mode, path, String(port)], {
    env: {
      ...process.env,
      CATALOG_DATA_DIR: join(root, 'dist/catalog'),
      SEALED_DATA_DIR: join(root, 'dist/sealed'),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      POWERTOOLS_LOG_LEVEL: 'WARN',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const url = `http://127.0.0.1:${port}${path}`;
  try {
    await autocannon({ url, connections: 10, amount: 20_000 }); // warm-up
    const { user: u0, system: s0 } = cpuTicks(child.pid!);
    const r = await autocannon({ url, connections: 10, amount: requests });
    const { user: u1, system: s1 } = cpuTicks(child.pid!);
    const us = (t: number): string => ((t * 10_000) / requests).toFixed(0);
    return `| ${mode} | ${path} | ${us(u1 - u0)} | ${us(s1 - s0)} | ${r.non2xx === 0 ? 'all 2xx' : `${r.non2xx} non-2xx`} |`;
  } finally {
    child.kill();
  }
}

const rows: string[] = [];
// The plain-handler layers answer {"ok":true}: comparable with /api/health's 61 bytes only.
for (const mode of layers) rows.push(await measure(mode, '/api/health'));
for (const mode of layers.filter((l) => ['F', 'H', 'HT', 'E'].includes(l))) rows.push(await measure(mode, '/api/catalog'));
rmSync(out, { recursive: true, force: true });
console.log(`| layer | path | user µs/request | system µs/request | answers |\n|---|---|---|---|---|\n${rows.join('\n')}`);
