/**
 * What MCP offers besides tool calls, read with the MCP SDK's own Client: its Streamable HTTP
 * transport's `fetch` is pointed at `postMcp`, so every request takes the path a Lambda's does
 * (the bounded body reader, a fresh stateless server) with the built catalog and no stack.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postMcp } from '../../lambdas/agents/mcp';
import type { AgentsPorts } from '../../lambdas/agents/ports';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import type { ApiRequest } from '../../lambdas/platform/http';

const BASE = 'http://127.0.0.1:9';
const catalog = loadCatalogFiles();
// Only what the listed surfaces read: the catalog. A tool that needs more fails, and no test here calls one.
const ports = { catalog, now: () => new Date() } as unknown as AgentsPorts;

/** A fetch that answers as the Lambda would: the request becomes an ApiRequest for postMcp. */
async function lambdaFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => {
    headers[k] = v;
  });
  if ((init?.method ?? 'GET') !== 'POST') return new Response(null, { status: 405 });
  const req: ApiRequest = {
    method: 'POST',
    path: new URL(url).pathname,
    routeKey: 'POST /api/mcp',
    query: {},
    headers,
    pathParameters: {},
    body: typeof init?.body === 'string' ? init.body : '',
    requestId: 'r-1',
    baseUrl: BASE,
    sourceIp: '127.0.0.1',
  };
  const res = await postMcp(req, ports);
  return new Response(res.statusCode === 202 || res.body === '' ? null : (res.body as string), {
    status: res.statusCode,
    headers: res.headers as Record<string, string>,
  });
}

let client: Client;
beforeEach(async () => {
  client = new Client({ name: 'surface-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/api/mcp`), { fetch: lambdaFetch }));
});
afterEach(async () => {
  await client.close();
});

describe('tool annotations', () => {
  it('tell a host which tool moves money: unlock_skill alone is not read-only', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(10);
    for (const t of tools) {
      // Every hint is stated, so no host falls back to the spec's defaults (destructive, open world).
      expect(Object.keys(t.annotations ?? {}).sort()).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
        'title',
      ]);
      expect(t.annotations?.title).toBe(t.title);
    }
    const writers = tools.filter((t) => !t.annotations?.readOnlyHint).map((t) => t.name);
    expect(writers).toEqual(['unlock_skill']);
    expect(tools.find((t) => t.name === 'unlock_skill')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(tools.find((t) => t.name === 'search_skills')?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    });
  });
});
