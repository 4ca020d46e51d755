/**
 * Issue 5 figures: MCP tools/call (search_skills) and A2A message/send latency through the
 * local server (sequential, warm, in-process clients from the official SDKs), and the
 * cold-start proxy of the agents Lambda: bundle size and the time a fresh Node process
 * takes to import the bundle and answer its first request.
 * Usage: npx tsx bench/agents.ts [requests=300]
 */
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientFactory } from '@a2a-js/sdk/client';
import { percentile, startMarket } from './harness';

const n = Number(process.argv[2] ?? '300');
const market = await startMarket();
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50).toFixed(2)} ms, p99 ${percentile(s, 99).toFixed(2)} ms`;
};
/**
 * fetch over node:http from a rotating loopback source address (all of 127.0.0.0/8 is loopback):
 * MCP is limited to 120 calls per minute per caller, and this measures latency, not the limiter.
 */
let caller = 0;
const rotatingFetch = (url: string | URL, init?: RequestInit): Promise<Response> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    const req = request(url, { method: init?.method ?? 'GET', headers, localAddress: `127.0.1.${1 + (caller++ % 250)}` }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
        resolve(new Response(res.statusCode === 202 ? null : Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: out }));
      });
    });
    req.on('error', reject);
    req.end(typeof init?.body === 'string' ? init.body : undefined);
  });
const mcpTimes: number[] = [];
const a2aTimes: number[] = [];
try {
  const mcp = new Client({ name: 'bench', version: '1' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${market.url}/api/mcp`), { fetch: rotatingFetch }));
  const queries = ['clean a messy csv', 'rotate a leaked key', 'postgres slow query', 'write release notes', 'reconcile stripe payouts'];
  for (let i = 0; i < n + 20; i++) {
    const t = performance.now();
    await mcp.callTool({ name: 'search_skills', arguments: { query: queries[i % queries.length]!, limit: 5 } });
    if (i >= 20) mcpTimes.push(performance.now() - t);
  }
  await mcp.close();
  const a2a = await new ClientFactory().createFromUrl(market.url);
  // Under the 120-per-minute limit of one caller: measure 100 sends from one address.
  for (let i = 0; i < Math.min(n, 100) + 10; i++) {
    const t = performance.now();
    await a2a.sendMessage({
      message: { kind: 'message', messageId: `b-${i}`, role: 'user', parts: [{ kind: 'text', text: queries[i % queries.length]! }] },
    });
    if (i >= 10) a2aTimes.push(performance.now() - t);
  }
} finally {
  await market.stop();
}

// Cold-start proxy: synthesize, find the agents bundle, import it in fresh processes.
execFileSync('npx', ['cdk', 'synth', '-q'], { stdio: 'ignore' });
interface Resource {
  Type: string;
  Properties: { Description?: unknown };
  Metadata: Record<string, string>;
}
const template = JSON.parse(execFileSync('cat', ['cdk.out/SkillMarket.template.json']).toString()) as {
  Resources: Record<string, Resource>;
};
const fn = Object.values(template.Resources).find(
  (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === 'skill-market agents routes',
);
if (!fn) throw new Error('no agents function in the synthesized template');
const assetDir = join('cdk.out', `asset.${String(fn.Metadata['aws:asset:path']).replace(/^asset\./, '')}`);
const size = (dir: string): number =>
  readdirSync(dir).reduce((t, f) => t + (statSync(join(dir, f)).isDirectory() ? size(join(dir, f)) : statSync(join(dir, f)).size), 0);
const bundle = statSync(join(assetDir, 'index.mjs')).size;
const probe = `
const t0 = performance.now();
const { handler } = await import('${join(process.cwd(), assetDir, 'index.mjs')}');
const t1 = performance.now();
const ev = { version: '2.0', routeKey: 'GET /api/mcp', rawPath: '/api/mcp', rawQueryString: '', headers: { host: 'x.example' }, requestContext: { requestId: 'r', http: { method: 'GET', path: '/api/mcp', protocol: 'HTTP/1.1', sourceIp: '1', userAgent: '' } }, isBase64Encoded: false };
const r = await handler(ev, { awsRequestId: 'r', functionName: 'f', getRemainingTimeInMillis: () => 10000 });
process.stdout.write(JSON.stringify({ importMs: t1 - t0, firstMs: performance.now() - t1, status: r.statusCode }));`;
const colds = Array.from(
  { length: 5 },
  () =>
    JSON.parse(
      execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', probe], {
        env: {
          ...process.env,
          CATALOG_DATA_DIR: join(assetDir, 'catalog'),
          SEALED_DATA_DIR: join(assetDir, 'sealed'),
          TREASURY_ADDRESS: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
          // As the stack sets it: the advertised base URL never comes from a request header.
          PUBLIC_BASE_URL: 'https://market.example',
          DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          AWS_REGION: 'us-east-1',
        },
      }).toString(),
    ) as { importMs: number; firstMs: number; status: number },
);
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log('| measure | value |\n|---|---|');
console.log(`| MCP tools/call search_skills through the local server (${mcpTimes.length} calls, SDK client) | ${stats(mcpTimes)} |`);
console.log(`| A2A message/send through the local server (${a2aTimes.length} sends, SDK client) | ${stats(a2aTimes)} |`);
console.log(
  `| agents bundle: index.mjs / whole asset with data | ${(bundle / 1024).toFixed(0)} KiB / ${(size(assetDir) / 1024 / 1024).toFixed(1)} MiB |`,
);
console.log(`| fresh process: import the bundle (median of 5) | ${med(colds.map((c) => c.importMs)).toFixed(0)} ms |`);
console.log(
  `| fresh process: first request after import, GET /api/mcp (median of 5; status ${colds[0]!.status}) | ${med(colds.map((c) => c.firstMs)).toFixed(0)} ms |`,
);
