/**
 * MCP's Skills extension (SEP-2640) as a stock MCP SDK client reads it: `client.request` with the
 * SEP's result shapes, through `postMcp` as a Lambda runs it (no stack). The listing is checked
 * against the pack bytes the sale delivers (dist/sealed) and the current version's record
 * (dist/catalog/versions.json): frontmatter, every file and its SHA-256. The sale itself (x402 on
 * `skills/get`) is in test/integration/mcp-skills.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { postMcp } from '../../lambdas/agents/mcp';
import { parseSkillUri, SKILLS_EXTENSION } from '../../lambdas/agents/mcp-skills';
import type { AgentsPorts } from '../../lambdas/agents/ports';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { CATALOG_DIR, SEALED_DIR } from '../../lambdas/contract/data-dirs';
import type { VersionIndex } from '../../lambdas/contract/pack-versions';
import type { ApiRequest } from '../../lambdas/platform/http';

const BASE = 'http://127.0.0.1:9';
const catalog = loadCatalogFiles();
// skills/list reads the catalog alone: a listing that reached for anything else would fail here.
const ports = { catalog, now: () => new Date() } as unknown as AgentsPorts;
const sealed = JSON.parse(readFileSync(join(SEALED_DIR, 'packs.json'), 'utf8')) as Record<string, Record<string, string>>;
const versions = JSON.parse(readFileSync(join(CATALOG_DIR, 'versions.json'), 'utf8')) as VersionIndex;

/** SEP-2640's entry and list result, as a client would declare them. */
const Entry = z.object({
  uri: z.string(),
  frontmatter: z.looseObject({ name: z.string(), description: z.string() }),
  resources: z.array(z.object({ uri: z.string(), digest: z.string().regex(/^sha256:[0-9a-f]{64}$/) })),
  _meta: z.optional(z.record(z.string(), z.unknown())),
});
const ListResult = z.object({ skills: z.array(Entry), nextCursor: z.optional(z.string()) });

async function lambdaFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => {
    headers[k] = v;
  });
  if ((init?.method ?? 'GET') !== 'POST') return new Response(null, { status: 405 });
  const req = {
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
  } as ApiRequest;
  const res = await postMcp(req, ports);
  return new Response(res.statusCode === 202 || res.body === '' ? null : (res.body as string), {
    status: res.statusCode,
    headers: res.headers as Record<string, string>,
  });
}

let client: Client;
beforeEach(async () => {
  client = new Client({ name: 'skills-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/api/mcp`), { fetch: lambdaFetch }));
});
afterEach(async () => {
  await client.close();
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The YAML frontmatter at the top of a SKILL.md, as a host parses it. */
function frontmatterOf(skillMd: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(skillMd);
  expect(m, skillMd.slice(0, 80)).not.toBeNull();
  return parseYaml(m![1]!) as Record<string, unknown>;
}

async function listAll() {
  const pages: z.infer<typeof ListResult>[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request({ method: 'skills/list', params: cursor === undefined ? {} : { cursor } }, ListResult);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe("MCP's Skills extension: the listing", () => {
  it('is declared under capabilities.extensions', () => {
    expect(client.getServerCapabilities()?.extensions).toEqual({ [SKILLS_EXTENSION]: {} });
  });

  it('lists all 250 packs in pages, each entry whole: frontmatter as in SKILL.md, every file with the SHA-256 of its bytes', async () => {
    const pages = await listAll();
    expect(pages.length).toBe(3);
    const skills = pages.flatMap((p) => p.skills);
    expect(skills).toHaveLength(250);
    expect(new Set(skills.map((s) => s.uri)).size).toBe(250);
    for (const s of skills) {
      const id = s.frontmatter.name;
      expect(s.uri).toBe(`skill://${id}/SKILL.md`);
      const files = sealed[id]!;
      // The frontmatter is SKILL.md's own, field for field (what a host compares after reading it).
      expect(s.frontmatter).toEqual(frontmatterOf(files['SKILL.md']!));
      // Complete: every file of the pack once, SKILL.md among them, each with the digest of the bytes sold.
      expect(s.resources.map((r) => r.uri).sort()).toEqual(
        Object.keys(files)
          .map((p) => `skill://${id}/${p}`)
          .sort(),
      );
      for (const r of s.resources) expect(r.digest).toBe(`sha256:${sha256(files[r.uri.slice(`skill://${id}/`.length)]!)}`);
      // The current version: its digest (the seal) and its files' digests are the entry's.
      const current = versions[id]!.at(-1)!;
      expect(s._meta?.['skill-market/pack']).toMatchObject({ digest: `sha256:${current.digest}` });
      expect(s.resources.map((r) => r.digest).sort()).toEqual(current.files.map((f) => `sha256:${f.sha256}`).sort());
    }
  });

  it('refuses a cursor it did not give with -32602', async () => {
    await expect(client.request({ method: 'skills/list', params: { cursor: 'bm90LW1pbmU' } }, ListResult)).rejects.toMatchObject({
      code: -32602,
    });
    await expect(
      client.request({ method: 'skills/list', params: { cursor: Buffer.from('s250').toString('base64url') } }, ListResult),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('answers skills/get of anything but a served SKILL.md with -32602, before any payment is asked', async () => {
    const pack = Object.keys(sealed['csv-cleaner']!).find((p) => p !== 'SKILL.md')!;
    for (const uri of [
      'skill://no-such-skill/SKILL.md',
      `skill://csv-cleaner/${pack}`,
      'skill://csv-cleaner/../x/SKILL.md',
      'https://x/SKILL.md',
    ]) {
      await expect(client.request({ method: 'skills/get', params: { uri } }, z.object({}))).rejects.toMatchObject({ code: -32602 });
    }
  });
});

describe('skill URIs', () => {
  it('name a file of a pack, and nothing else', () => {
    const path = Object.keys(sealed['csv-cleaner']!).find((p) => p !== 'SKILL.md')!;
    expect(parseSkillUri(catalog, 'skill://csv-cleaner/SKILL.md')).toMatchObject({ entry: { id: 'csv-cleaner' }, path: 'SKILL.md' });
    expect(parseSkillUri(catalog, `skill://csv-cleaner/${path}`)).toMatchObject({ path });
    for (const uri of [
      'skill://csv-cleaner/NOPE.md',
      'skill://csv-cleaner/',
      'skill://CSV-cleaner/SKILL.md',
      'skill://csv-cleaner/./SKILL.md',
    ]) {
      expect(parseSkillUri(catalog, uri)).toBeUndefined();
    }
  });
});
