import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, loadSkills, priceLabel, type BuildResult } from '../../catalog/build';
import { CATALOG_SIZE_EXPECTED } from '../../lambdas/contract/catalog-data';
import { SAMPLE_END_MARKER, skillBody } from '../../catalog/render';
import type { SkillRecord } from '../../catalog/schema';
import { packFiles, packSeal } from '../../lambdas/contract/pack-seal';

let built: BuildResult;
let skills: Map<string, SkillRecord>;
beforeAll(async () => {
  built = await buildCatalog();
  skills = new Map(loadSkills().map((s) => [s.id, s]));
});

/**
 * Which of `needles` occur in `text`, in one pass over it: a rolling hash of every window as long
 * as the shortest needle, checked against the needles' prefixes, each hit confirmed in full.
 * A search of the whole public corpus per sealed line took 15 s alone and passed 30 s on a loaded
 * machine; this is linear in the corpus.
 */
function occurring(text: string, needles: readonly string[]): Set<string> {
  const found = new Set<string>();
  const width = Math.min(...needles.map((n) => n.length));
  if (width === 0 || text.length < width) return found;
  const B = 131;
  let top = 1; // B^(width-1), mod 2^32
  for (let i = 1; i < width; i++) top = Math.imul(top, B);
  const hashOf = (str: string, from: number): number => {
    let h = 0;
    for (let i = from; i < from + width; i++) h = (Math.imul(h, B) + str.charCodeAt(i)) | 0;
    return h;
  };
  const byPrefix = new Map<number, string[]>();
  for (const n of needles) byPrefix.set(hashOf(n, 0), [...(byPrefix.get(hashOf(n, 0)) ?? []), n]);
  let h = hashOf(text, 0);
  for (let i = 0; ; i++) {
    for (const n of byPrefix.get(h) ?? []) if (text.startsWith(n, i)) found.add(n);
    if (i + width >= text.length) return found;
    h = (Math.imul(h - Math.imul(text.charCodeAt(i), top), B) + text.charCodeAt(i + width)) | 0;
  }
}

const publicText = (path: string): string => {
  const v = built.publicFiles.get(path);
  if (v === undefined) throw new Error(`no public file ${path}`);
  return v.toString();
};

describe('catalog build', () => {
  it(`has exactly ${CATALOG_SIZE_EXPECTED} skills with unique kebab-case ids`, () => {
    expect(built.entries).toHaveLength(250);
    expect(new Set(built.entries.map((e) => e.id)).size).toBe(250);
    for (const e of built.entries) expect(e.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('includes the canary, the seed judges and the card packs', () => {
    for (const id of [
      'agent-x402-first-buy',
      'esp-outcome-judge',
      'esp-claim-verifier',
      'esp-delivery-critic',
      'ten-send',
      'market-x402-merchant-os',
      'market-cold-start-catalog-bootstrapper',
      'csv-cleaner',
    ]) {
      expect(
        built.entries.some((e) => e.id === id),
        id,
      ).toBe(true);
    }
  });

  it('gives every entry valid fields: price label, x402 surface, protocols', () => {
    for (const e of built.entries) {
      expect(e.name.length).toBeGreaterThan(2);
      expect(e.price_label, e.id).toMatch(/^\$\d/);
      expect(e.price_usd).toBeGreaterThan(0);
      expect(e.regular_price_usd).toBeGreaterThanOrEqual(e.price_usd);
      expect(e.x402).toEqual({
        resource: `/api/pay?skill=${e.id}`,
        method: 'GET',
        scheme: 'exact',
        network: 'eip155:8453',
        network_name: 'base',
        asset: 'USDC',
        amount: expect.stringMatching(/^[1-9]\d*$/),
      });
      expect(Number(e.x402.amount)).toBe(Math.round(e.price_usd * 1e6));
      expect(e.protocols).toEqual(['x402', 'esp']);
      expect(e.tags.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('prices the ten x402 resources as the spec does: canary 5000, nine at 99000', () => {
    const pricing = JSON.parse(readFileSync('catalog/pricing.json', 'utf8')) as { x402_resources: { skill_id: string }[] };
    const featured = pricing.x402_resources.map((r) => built.entries.find((e) => e.id === r.skill_id)!);
    const canary = featured.find((e) => e.id === 'agent-x402-first-buy')!;
    expect([canary.x402.amount, canary.price_usd, canary.regular_price_usd, canary.price_label]).toEqual(['5000', 0.005, 0.05, '$0.005']);
    const nine = featured.filter((e) => e !== canary);
    expect(nine).toHaveLength(9);
    for (const e of nine) expect([e.x402.amount, e.price_usd, e.regular_price_usd]).toEqual(['99000', 0.099, 0.99]);
    expect(JSON.parse(built.catalogFiles.get('pricing.json')!).card_cents).toEqual({
      'ten-send': 1900,
      'market-x402-merchant-os': 99,
      'market-cold-start-catalog-bootstrapper': 99,
      'csv-cleaner': 1000,
    });
  });

  it('states each price the same way in catalog.json and in the outline', () => {
    const catalog = JSON.parse(publicText('catalog.json')) as {
      count: number;
      skills: { id: string; price_usd: number; x402: { amount: string } }[];
    };
    expect(catalog.count).toBe(250);
    for (const e of catalog.skills) {
      const outline = JSON.parse(publicText(`skills/${e.id}/outline.json`));
      expect(outline.price.amount).toBe(e.x402.amount);
      expect(outline.price.price_usd).toBe(e.price_usd);
    }
  });

  it('seals every non-empty pack: SKILL.md with steps, checks and an example; seal matches its files', () => {
    for (const e of built.entries) {
      const pack = built.packs.get(e.id)!;
      const md = pack['SKILL.md']!;
      // The Agent Skills format: YAML frontmatter naming the skill (its directory name) and describing it.
      expect(md.startsWith(`---\nname: ${e.id}\ndescription: ${JSON.stringify(e.summary)}\n---\n\n# `), e.id).toBe(true);
      expect(md).toContain('## Steps');
      expect(md).toContain('## Checks');
      expect(md).toContain('## Worked example');
      for (const text of Object.values(pack)) expect(text.length).toBeGreaterThan(0);
      const meta = built.packMeta.get(e.id)!;
      expect(meta.seal).toBe(packSeal(packFiles(pack)));
      expect(JSON.parse(publicText(`skills/${e.id}/outline.json`)).pack.seal).toBe(meta.seal);
    }
  });

  it('makes every sample a verbatim excerpt of its SKILL.md', () => {
    for (const e of built.entries) {
      const sample = publicText(`skills/${e.id}/sample.md`);
      const excerpt = sample.slice(0, sample.indexOf(SAMPLE_END_MARKER));
      expect(excerpt.length, e.id).toBeGreaterThan(200);
      expect(skillBody(built.packs.get(e.id)!['SKILL.md']!).startsWith(excerpt), e.id).toBe(true);
    }
  });

  it('finds text in text in one pass exactly as includes() does', () => {
    const text = 'the quick brown fox jumps over the lazy dog; the quick brown cat';
    const needles = ['quick brown', 'lazy dog', 'brown cat', 'quick brawn', 'the quick brown fox jumps over', 'dog; the', 'cat!'];
    expect([...occurring(text, needles)].sort()).toEqual(needles.filter((n) => text.includes(n)).sort());
    expect(occurring(text, ['the q'])).toEqual(new Set(['the q']));
    expect(occurring('short', ['longer than the text'])).toEqual(new Set());
  });

  it('leaves no sealed text reachable through any public file', () => {
    const corpus = [...built.publicFiles.values()].map((v) => v.toString()).join('\n');
    const owners = new Map<string, string>();
    for (const [id, s] of skills) {
      const secrets = [
        ...s.steps.slice(1).map((st) => st.detail),
        ...s.checks,
        ...s.pitfalls,
        s.example.walkthrough,
        s.example.result,
        ...Object.values(s.files ?? {}).map((f) => f.slice(0, 200)),
      ];
      for (const secret of secrets) owners.set(secret, id);
    }
    expect(owners.size).toBeGreaterThan(skills.size * 5);
    const leaked = [...occurring(corpus, [...owners.keys()])].map((secret) => `${owners.get(secret)}: "${secret.slice(0, 60)}…"`);
    expect(leaked, 'sealed text in public files').toEqual([]);
    // No pack file, and no dump of packs, is among the public paths.
    expect(
      [...built.publicFiles.keys()].filter((k) => k.endsWith('SKILL.md') || k.endsWith('packs.json') || k.startsWith('sealed/')),
    ).toEqual([]);
  });

  it('is deterministic: two builds give identical bytes', async () => {
    const again = await buildCatalog();
    expect([...again.publicFiles.entries()].map(([k, v]) => [k, v.toString()])).toEqual(
      [...built.publicFiles.entries()].map(([k, v]) => [k, v.toString()]),
    );
    expect(again.catalogFiles).toEqual(built.catalogFiles);
  });

  it('labels prices with a dollar sign and a digit', () => {
    expect(priceLabel(0.1)).toBe('$0.10');
    expect(priceLabel(4.99)).toBe('$4.99');
    expect(priceLabel(0.099)).toBe('$0.099');
    expect(priceLabel(0.005)).toBe('$0.005');
  });
});
