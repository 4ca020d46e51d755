/**
 * What MCP offers besides tool calls, read with the MCP SDK's own Client: its Streamable HTTP
 * transport's `fetch` is pointed at `postMcp`, so every request takes the path a Lambda's does
 * (the bounded body reader, a fresh stateless server) with the built catalog and no stack.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postMcp } from '../../lambdas/agents/mcp';
import type { AgentsPorts } from '../../lambdas/agents/ports';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { getPackMetadata } from '../../lambdas/catalog/get-pack-metadata';
import { PUBLIC_DIR } from '../../lambdas/contract/data-dirs';
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

describe('resources', () => {
  it('lists every skill’s outline, sample and pack metadata in pages, and no pack', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      expect(page.resources.length).toBeLessThanOrEqual(100);
      seen.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(Math.ceil((catalog.entries.length * 3) / 100));
    expect(new Set(seen).size).toBe(catalog.entries.length * 3);
    expect(seen).toEqual(
      expect.arrayContaining([
        `${BASE}/skills/csv-cleaner/outline.json`,
        `${BASE}/skills/csv-cleaner/sample.md`,
        `${BASE}/api/packs?skill=csv-cleaner`,
      ]),
    );
    expect(seen.filter((u) => !/\/(outline\.json|sample\.md)$|\/api\/packs\?skill=[a-z0-9-]+$/.test(u))).toEqual([]);
  });

  it('refuses a cursor it did not give with -32602', async () => {
    await expect(client.listResources({ cursor: 'bm90LW1pbmU' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.listResources({ cursor: Buffer.from('o99999').toString('base64url') })).rejects.toMatchObject({ code: -32602 });
  });

  it('gives the three URI templates, and reads what the site and GET /api/packs serve', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      `${BASE}/skills/{skill_id}/outline.json`,
      `${BASE}/skills/{skill_id}/sample.md`,
      `${BASE}/api/packs?skill={skill_id}`,
    ]);
    const read = async (uri: string) => (await client.readResource({ uri })).contents[0] as { uri: string; mimeType: string; text: string };
    const site = (path: string) => readFileSync(join(PUBLIC_DIR, path), 'utf8');
    const outline = await read(`${BASE}/skills/csv-cleaner/outline.json`);
    expect(outline).toMatchObject({ mimeType: 'application/json', text: site('skills/csv-cleaner/outline.json') });
    const sample = await read(`${BASE}/skills/csv-cleaner/sample.md`);
    expect(sample).toMatchObject({ mimeType: 'text/markdown', text: site('skills/csv-cleaner/sample.md') });
    const packs = JSON.parse((await read(`${BASE}/api/packs?skill=csv-cleaner`)).text);
    const http = await getPackMetadata({ query: { skill: 'csv-cleaner' }, baseUrl: BASE } as unknown as ApiRequest, { catalog });
    expect(packs).toEqual(JSON.parse(http.body as string));
    expect(packs.files.length).toBeGreaterThan(0);
    expect(JSON.stringify(packs)).not.toContain('"content"');
  });

  it('answers -32002 for anything else: an unknown skill, another host, the pack itself', async () => {
    for (const uri of [
      `${BASE}/skills/no-such-skill/outline.json`,
      `https://evil.example/skills/csv-cleaner/outline.json`,
      `${BASE}/skills/csv-cleaner/SKILL.md`,
      `${BASE}/skills/csv-cleaner/outline.json?x=1`,
      `${BASE}/api/pay?skill=csv-cleaner`,
    ]) {
      await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32002 });
    }
  });
});

describe('prompts', () => {
  it('lists "find and buy a skill" with its need argument', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'find_and_buy_skill',
        title: 'Find and buy a skill',
        arguments: [expect.objectContaining({ name: 'need', required: true })],
      }),
    ]);
  });

  it('teaches search, the free sample, x402 payment and the license, naming the catalog’s best match', async () => {
    const got = await client.getPrompt({
      name: 'find_and_buy_skill',
      arguments: { need: 'find the commit that broke the build with git bisect' },
    });
    const text = (got.messages[0]!.content as { text: string }).text;
    expect(got.messages[0]!.role).toBe('user');
    for (const step of [
      'search_skills',
      'get_sample',
      'unlock_skill',
      '_meta["x402/payment"]',
      'payment_signature',
      'stock x402 client',
      'license_token',
      'sign_in_with_x',
    ])
      expect(text).toContain(step);
    expect(text).toContain('- git-bisect-regression-hunt:');
    expect(text).toContain(`${BASE}/skills/git-bisect-regression-hunt/sample.md`);
    expect(text).toContain(`${BASE}/api/pay?skill=git-bisect-regression-hunt`);
  });

  it('refuses a missing need with -32602', async () => {
    await expect(client.getPrompt({ name: 'find_and_buy_skill', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('logging', () => {
  it('declares the logging capability and accepts logging/setLevel', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ logging: {}, resources: {}, prompts: {}, tools: {} });
    await expect(client.setLoggingLevel('warning')).resolves.toEqual({});
  });
});
