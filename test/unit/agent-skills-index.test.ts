/**
 * `/.well-known/agent-skills/index.json` in the Agent Skills discovery draft's shape (v0.2.0): every
 * pack once, as an archive whose digest is the SHA-256 of the very bytes the paid URL answers, and
 * which unpacks to the current version's files (dist/catalog/versions.json). The sale of the archive
 * is in test/integration/mcp-skills.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { AGENT_SKILLS_SCHEMA, agentSkillsIndex, getAgentSkillsIndex, packArchive } from '../../lambdas/agents/agent-skills';
import type { AgentsPorts } from '../../lambdas/agents/ports';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { CATALOG_DIR } from '../../lambdas/contract/data-dirs';
import type { VersionIndex } from '../../lambdas/contract/pack-versions';
import { filePackStore } from '../../lambdas/payments/adapters/file-pack-store';
import type { ApiRequest } from '../../lambdas/platform/http';

const BASE = 'https://market.example';
const catalog = loadCatalogFiles();
const packs = filePackStore();
// The index reads the catalog and the pack texts alone.
const ports = { catalog, packs } as unknown as AgentsPorts;
const versions = JSON.parse(readFileSync(join(CATALOG_DIR, 'versions.json'), 'utf8')) as VersionIndex;
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

/** The draft's naming rule for `name`. */
const NAME = /^(?!-)(?!.*--)[a-z0-9-]{1,64}(?<!-)$/;

describe('the Agent Skills discovery index', () => {
  const index = agentSkillsIndex(ports, BASE);

  it('has the v0.2.0 $schema and every pack once, each entry with the five fields the draft requires', async () => {
    expect(index.$schema).toBe(AGENT_SKILLS_SCHEMA);
    expect(index.skills).toHaveLength(250);
    expect(new Set(index.skills.map((s) => s.name)).size).toBe(250);
    for (const s of index.skills) {
      expect(s.name).toMatch(NAME);
      expect(s.type).toBe('archive');
      expect(s.url).toBe(`${BASE}/.well-known/agent-skills/${s.name}/pack.zip`);
      expect(s.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(s.description.length).toBeGreaterThan(0);
      expect(s.description.length).toBeLessThanOrEqual(1024);
    }
    const res = getAgentSkillsIndex({ baseUrl: BASE } as ApiRequest, ports);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body as string)).toEqual(index);
  });

  it("names archives whose bytes hash to the digest and unpack to the current version's files, SKILL.md's frontmatter matching", () => {
    for (const s of index.skills) {
      const files = packs.get(s.name)!;
      const zip = packArchive(files);
      expect(`sha256:${sha256(zip)}`).toBe(s.digest);
      const unpacked = unzipSync(zip);
      expect(Object.keys(unpacked).sort()).toEqual(Object.keys(files).sort());
      const current = versions[s.name]!.at(-1)!;
      expect(s.pack.seal).toBe(`sha256:${current.digest}`);
      for (const f of current.files) expect(sha256(unpacked[f.path]!)).toBe(f.sha256);
      const skillMd = strFromU8(unpacked['SKILL.md']!);
      const fm = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(skillMd)![1]!) as { name: string; description: string };
      expect(fm).toEqual({ name: s.name, description: s.description });
    }
  });

  it('makes the same archive from the same files, whatever order they come in', () => {
    const files = packs.get(index.skills[0]!.name)!;
    const reversed = Object.fromEntries(Object.entries(files).reverse());
    expect(sha256(packArchive(reversed))).toBe(sha256(packArchive(files)));
    expect(sha256(packArchive({ ...files, 'SKILL.md': `${files['SKILL.md']} ` }))).not.toBe(sha256(packArchive(files)));
  });
});
