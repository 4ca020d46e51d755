/**
 * The catalog build. Validates the authored skills and the price source, then writes:
 * - dist/public: the static tree CloudFront serves (catalog.json, skills/{id}/outline.json,
 *   skills/{id}/sample.md, and the storefront from catalog/storefront: the home page,
 *   skills/{id}/index.html, the proof, recovery and checkout pages, and their hashed assets);
 * - dist/catalog: what every Lambda loads at cold start (entries, pack metadata, the
 *   prebuilt search index, resolved prices);
 * - dist/sealed: the pack texts, bundled only into the payments Lambda, never served;
 * - dist/versions: every published version of every pack, content-addressed (catalog/versions.ts),
 *   and catalog/versions gains a record for each pack whose bytes changed (issue 52).
 * Runs in `npm start`, `npm test` and `cdk synth`; the output is deterministic.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { CAIP2, NETWORK, USD_DECIMALS } from '../lambdas/contract/chain';
import {
  CATALOG_SIZE_EXPECTED,
  subscriptionPlans,
  type CatalogEntry,
  type BundleDefinition,
  type Listings,
  type PackMeta,
  type PricingData,
  type SealedPack,
} from '../lambdas/contract/catalog-data';
import { packFiles, packSeal } from '../lambdas/contract/pack-seal';
import { isDay } from '../lambdas/contract/days';
import { buildSearchIndex, type SearchDocument } from '../lambdas/contract/search-index';
import { CATALOG_DIR, PUBLIC_DIR, SEALED_DIR, VERSIONS_DIST_DIR } from '../lambdas/contract/data-dirs';
import { PLACEHOLDER_OPERATOR, type OperatorReading } from '../lambdas/contract/operator';
import { renderPack, renderSample } from './render';
import { renderLlmsTxt } from './llms';
import { espCycleJsonSchema } from '../lambdas/contract/esp-cycle-schema';
import { BundlesSchema, ListingsSchema, PricingSchema, SkillRecordSchema, type Pricing, type SkillRecord } from './schema';
import { writeTree } from './write-tree';
import { evaluatePacks, EVAL_SUITE, EVAL_SUITE_VERSION } from './eval-suite';
import { canonicalize } from 'json-canonicalize';
import { digestRef, versionObjectKey, type PackVersionMeta, type PackVersionRecord } from '../lambdas/contract/pack-versions';
import { PROVENANCE_INPUTS_FILE, type ProvenanceInputs } from '../lambdas/contract/provenance';
import { loadVersionStore, nextVersions, sourceCommit, VERSIONS_DIR, writeVersions } from './versions';
import { scanPacks, securitySarif } from './security-scan';
import { buildAssets, type BuiltAssets } from './storefront/assets';
import { renderStorefront } from './storefront/pages';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));
const SKILLS_DIR = here('./skills');
const PRICING_FILE = here('./pricing.json');
const BUNDLES_FILE = here('./bundles.json');
const LISTINGS_FILE = here('./listings.json');

const ATOMIC = 10 ** USD_DECIMALS;

export class CatalogError extends Error {}

/** Reads and validates every authored skill; every problem is reported at once. */
export function loadSkills(dir = SKILLS_DIR): SkillRecord[] {
  const problems: string[] = [];
  const skills: SkillRecord[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const category = file.replace(/\.json$/, '');
    const raw = JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown[];
    raw.forEach((item, i) => {
      const parsed = SkillRecordSchema.safeParse(item);
      const label = `${file}[${i}]${typeof item === 'object' && item && 'id' in item ? ` (${String(item.id)})` : ''}`;
      if (!parsed.success) {
        problems.push(`${label}: ${parsed.error.issues.map((e) => `${e.path.join('.')}: ${e.message}`).join('; ')}`);
      } else if (parsed.data.category !== category) {
        problems.push(`${label}: category "${parsed.data.category}" but file is ${file}`);
      } else skills.push(parsed.data);
    });
  }
  const seen = new Set<string>();
  for (const s of skills) {
    if (seen.has(s.id)) problems.push(`duplicate id ${s.id}`);
    seen.add(s.id);
  }
  if (skills.length !== CATALOG_SIZE_EXPECTED && problems.length === 0)
    problems.push(`expected ${CATALOG_SIZE_EXPECTED} skills, found ${skills.length}`);
  if (problems.length > 0) throw new CatalogError(`Invalid catalog:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return skills.sort((a, b) => (a.id < b.id ? -1 : 1));
}

export function loadPricing(skills: readonly SkillRecord[], file = PRICING_FILE): Pricing {
  const pricing = PricingSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const byId = new Map(skills.map((s) => [s.id, s]));
  const problems: string[] = [];
  const ids = pricing.x402_resources.map((r) => r.skill_id);
  if (new Set(ids).size !== ids.length) problems.push('x402_resources lists a skill twice');
  if (!ids.includes(pricing.canary)) problems.push(`the canary ${pricing.canary} is not among x402_resources`);
  for (const r of pricing.x402_resources) {
    const skill = byId.get(r.skill_id);
    if (!skill) problems.push(`x402_resources: unknown skill ${r.skill_id}`);
    else if (Number(r.amount) > Math.round(skill.price_usd * ATOMIC))
      problems.push(`${r.skill_id}: featured amount ${r.amount} exceeds its list price ${skill.price_usd}`);
  }
  for (const id of Object.keys(pricing.card_cents)) if (!byId.has(id)) problems.push(`card_cents: unknown skill ${id}`);
  if (problems.length > 0) throw new CatalogError(`Invalid pricing.json:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return pricing;
}

/** Reads the bundles: every skill must exist, once per bundle; ids unique. */
export function loadBundles(skills: readonly SkillRecord[], file = BUNDLES_FILE): BundleDefinition[] {
  const { bundles } = BundlesSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const ids = new Set(skills.map((s) => s.id));
  const problems: string[] = [];
  if (new Set(bundles.map((b) => b.id)).size !== bundles.length) problems.push('a bundle id appears twice');
  for (const b of bundles) {
    if (new Set(b.skills).size !== b.skills.length) problems.push(`${b.id}: lists a skill twice`);
    for (const id of b.skills) if (!ids.has(id)) problems.push(`${b.id}: unknown skill ${id}`);
  }
  if (problems.length > 0) throw new CatalogError(`Invalid bundles.json:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return bundles;
}

/** Reads the listing days: exactly the catalog's skills, each a real calendar day. */
export function loadListings(skills: readonly SkillRecord[], file = LISTINGS_FILE): Listings {
  const { listed_at } = ListingsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const problems: string[] = [];
  for (const s of skills) if (!Object.hasOwn(listed_at, s.id)) problems.push(`${s.id}: no listing day`);
  const ids = new Set(skills.map((s) => s.id));
  for (const [id, day] of Object.entries(listed_at)) {
    if (!ids.has(id)) problems.push(`${id}: listed but not in the catalog`);
    if (!isDay(day)) problems.push(`${id}: ${day} is not a calendar day`);
  }
  if (problems.length > 0) throw new CatalogError(`Invalid listings.json:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return Object.fromEntries(skills.map((s) => [s.id, listed_at[s.id]!]));
}

/** "$0.10", "$4.99", and the sub-cent prices in full: "$0.099", "$0.005". */
export function priceLabel(usd: number): string {
  const cents = usd * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-9 ? `$${usd.toFixed(2)}` : `$${String(usd)}`;
}

export interface BuildResult {
  entries: CatalogEntry[];
  packs: Map<string, SealedPack>;
  packMeta: Map<string, PackMeta>;
  publicFiles: Map<string, string | Buffer>;
  /** dist/catalog: loaded by every Lambda. */
  catalogFiles: Map<string, string>;
  /** The storefront's scripts and stylesheet (also in publicFiles), with their import graph for the page-weight budget. */
  assets: BuiltAssets;
  /** Every skill's versions after this build, oldest first (the last is what `packs` holds). */
  versions: Map<string, PackVersionRecord[]>;
  /** The versions this build published: written to the version store by {@link buildSite}. */
  addedVersions: PackVersionRecord[];
  /** dist/versions: every version's record under its content address. */
  versionFiles: Map<string, string>;
}

/** Computes every output in memory, the pack scan and eval suite included; {@link buildSite} writes them. */
/** What a build may be given beyond the authored files. */
export interface BuildOptions {
  /**
   * Who runs the store, for the terms, privacy, refund and contact pages: the CDK context in a
   * synth (bin/app.ts); the placeholders otherwise (`npm start`, the tests), which the pages mark.
   */
  operator?: OperatorReading;
  /** Where the authored skills are (tests edit a copy); catalog/skills by default. */
  skillsDir?: string;
  /** The version store (catalog/versions by default; tests use a copy). */
  versionsDir?: string;
  /** The day a version published by this build carries; the clock by default. */
  now?: Date;
}

export async function buildCatalog(options: BuildOptions = {}): Promise<BuildResult> {
  const skills = loadSkills(options.skillsDir);
  const storedVersions = loadVersionStore(options.versionsDir ?? VERSIONS_DIR);
  const pricing = loadPricing(skills);
  const bundles = loadBundles(skills);
  const listings = loadListings(skills);
  const featured = new Map(pricing.x402_resources.map((r) => [r.skill_id, r.amount]));

  const entries: CatalogEntry[] = [];
  const packs = new Map<string, SealedPack>();
  const packMeta = new Map<string, PackMeta>();
  const publicFiles = new Map<string, string | Buffer>();
  const searchDocs: SearchDocument[] = [];

  for (const s of skills) {
    const amount = featured.get(s.id) ?? String(Math.round(s.price_usd * ATOMIC));
    const price = Number(amount) / ATOMIC;
    const payPath = `/api/pay?skill=${s.id}`;
    const entry: CatalogEntry = {
      id: s.id,
      name: s.name,
      price_usd: price,
      price_label: priceLabel(price),
      regular_price_usd: s.price_usd,
      category: s.category,
      summary: s.summary,
      tags: s.tags,
      protocols: ['x402', 'esp'],
      x402: { resource: payPath, method: 'GET', scheme: 'exact', network: CAIP2, network_name: NETWORK, asset: 'USDC', amount },
      outline: `/skills/${s.id}/outline.json`,
      sample: `/skills/${s.id}/sample.md`,
    };
    entries.push(entry);

    const pack = renderPack(s);
    const files = packFiles(pack);
    const meta: PackMeta = {
      skill_id: s.id,
      file_count: files.length,
      total_bytes: files.reduce((n, f) => n + f.bytes, 0),
      files,
      seal: packSeal(files),
    };
    packs.set(s.id, pack);
    packMeta.set(s.id, meta);

    const outline = {
      skill_id: s.id,
      name: s.name,
      category: s.category,
      summary: s.summary,
      for: s.audience,
      outcome: s.outcome,
      you_need: s.inputs,
      sections: [
        { title: 'When to use' },
        { title: 'Outcome' },
        { title: 'Before you start', items: s.inputs.length },
        { title: 'Steps', items: s.steps.map((st) => st.title) },
        { title: 'Checks', items: s.checks.length },
        { title: 'Pitfalls', items: s.pitfalls.length },
        { title: 'Worked example' },
        ...(s.files ? [{ title: 'Files in this pack', items: Object.keys(s.files) }] : []),
      ],
      pack: {
        file_count: meta.file_count,
        total_bytes: meta.total_bytes,
        files: files.map((f) => ({ path: f.path, bytes: f.bytes })),
        seal: meta.seal,
      },
      price: {
        price_usd: entry.price_usd,
        price_label: entry.price_label,
        regular_price_usd: entry.regular_price_usd,
        amount,
        asset: 'USDC',
        network: CAIP2,
      },
      evaluate: { sample: entry.sample, pack_metadata: `/api/packs?skill=${s.id}` },
      buy: { challenge: payPath, note: 'The 402 challenge is authoritative for the amount, receiver and asset.' },
    };
    publicFiles.set(`skills/${s.id}/outline.json`, `${JSON.stringify(outline, null, 2)}\n`);
    publicFiles.set(`skills/${s.id}/sample.md`, renderSample(s, payPath));

    searchDocs.push({
      id: s.id,
      name: s.name,
      tags: s.tags.join(' '),
      summary: s.summary,
      category: s.category,
      body: [s.audience, s.outcome, ...s.inputs, ...s.steps.map((st) => st.title)].join('\n'),
    });
  }

  publicFiles.set(
    'llms.txt',
    renderLlmsTxt(
      entries,
      pricing.canary,
      pricing.x402_resources.map((r) => r.skill_id),
    ),
  );
  publicFiles.set('esp/cycle.schema.json', `${JSON.stringify(espCycleJsonSchema('/esp/cycle.schema.json'), null, 2)}\n`);

  const categories = [...new Set(entries.map((e) => e.category))]
    .sort()
    .map((id) => ({ id, count: entries.filter((e) => e.category === id).length }));
  const catalogFiles = new Map<string, string>([
    ['entries.json', JSON.stringify(entries)],
    ['packs.json', JSON.stringify(Object.fromEntries(packMeta))],
    ['search-index.json', JSON.stringify(buildSearchIndex(searchDocs))],
    ['bundles.json', JSON.stringify(bundles)],
    ['listings.json', JSON.stringify(listings)],
    [
      'pricing.json',
      JSON.stringify({
        canary: pricing.canary,
        x402_resources: pricing.x402_resources.map((r) => r.skill_id),
        card_cents: pricing.card_cents,
        plans: subscriptionPlans(pricing.subscriptions, [...new Set(entries.map((e) => e.category))]),
        meter_min_top_up: pricing.meter.min_top_up,
      } satisfies PricingData),
    ],
    // The free evaluation files again, for domains that answer with them (MCP, A2A) without fetching the CDN.
    [
      'evaluation.json',
      JSON.stringify(
        Object.fromEntries(
          entries.map((e) => [
            e.id,
            {
              outline: JSON.parse(publicFiles.get(`skills/${e.id}/outline.json`)!.toString()),
              sample: publicFiles.get(`skills/${e.id}/sample.md`)!.toString(),
            },
          ]),
        ),
      ),
    ],
  ]);
  // The security scan and the eval suite run over every pack as sold (its seal recorded), on each build.
  const security = await scanPacks([...packs].map(([id, files]) => ({ skill_id: id, seal: packMeta.get(id)!.seal, files })));
  const evals = evaluatePacks(
    skills.map((s) => ({
      record: s,
      pack: packs.get(s.id)!,
      sample: publicFiles.get(`skills/${s.id}/sample.md`)!.toString(),
      outline: JSON.parse(publicFiles.get(`skills/${s.id}/outline.json`)!.toString()) as unknown,
      seal: packMeta.get(s.id)!.seal,
    })),
  );
  // A pack whose bytes changed since its latest version becomes a new version, which records what
  // was just checked in those bytes; a version already published keeps what it recorded then.
  const { versions, added: addedVersions } = nextVersions(
    storedVersions,
    skills.map((s) => ({
      skill_id: s.id,
      pack: packs.get(s.id)!,
      meta: packMeta.get(s.id)!,
      record: { file: `catalog/skills/${s.category}.json`, json: canonicalize(s) },
      checks: {
        security: { scanners: security.scanners, result: security.skills[s.id]! },
        eval: { suite: EVAL_SUITE, version: EVAL_SUITE_VERSION, result: evals.skills[s.id]! },
      },
    })),
    options.now ?? new Date(),
    sourceCommit(),
  );
  const versionIndex: Record<string, PackVersionMeta[]> = Object.fromEntries(
    [...versions].map(([id, vs]) => [
      id,
      vs.map(({ skill_id, version, published, digest, file_count, total_bytes, files }) => ({
        skill_id,
        version,
        published,
        digest,
        file_count,
        total_bytes,
        files,
      })),
    ]),
  );
  catalogFiles.set('versions.json', JSON.stringify(versionIndex));
  publicFiles.set(
    'catalog.json',
    `${JSON.stringify(
      {
        schema: 'skill-market-catalog-v1',
        count: entries.length,
        note: 'Prices are generated from one price source. The 402 challenge from GET /api/pay?skill=<id> is authoritative for the amount, receiver and asset to pay.',
        categories,
        // Each skill names its current version and lists the earlier ones, newest first (issue 52).
        skills: entries.map((e) => {
          const vs = versionIndex[e.id] ?? [];
          const listing = (v: PackVersionMeta) => ({ number: v.version, digest: digestRef(v.digest), published: v.published });
          return { ...e, version: listing(vs.at(-1)!), earlier_versions: vs.slice(0, -1).reverse().map(listing) };
        }),
      },
      null,
      1,
    )}\n`,
  );

  // What each version's signed statements are made of, without its bytes: read by the provenance route (issue 52).
  const provenanceInputs: ProvenanceInputs = Object.fromEntries(
    [...versions].map(([id, vs]) => [
      id,
      vs.map(({ skill_id, version, published, digest, files, source, checks }) => ({
        skill_id,
        version,
        published,
        digest,
        files,
        source,
        checks,
      })),
    ]),
  );
  catalogFiles.set(PROVENANCE_INPUTS_FILE, JSON.stringify(provenanceInputs));
  const versionFiles = new Map<string, string>([...versions.values()].flat().map((r) => [versionObjectKey(r.digest), JSON.stringify(r)]));
  catalogFiles.set('security.json', JSON.stringify(security));
  catalogFiles.set('eval.json', JSON.stringify(evals));
  publicFiles.set('security.sarif.json', `${JSON.stringify(securitySarif(security), null, 1)}\n`);

  // The storefront for people: pages pre-rendered from the facts above, and their hashed scripts and stylesheet.
  const assets = await buildAssets();
  for (const [path, bytes] of assets.files) publicFiles.set(path, Buffer.from(bytes));
  const pages = renderStorefront(
    {
      records: skills,
      entries,
      packMeta,
      samples: new Map(entries.map((e) => [e.id, publicFiles.get(`skills/${e.id}/sample.md`)!.toString()])),
      versions,
      cardCents: pricing.card_cents,
      listedAt: listings,
      operator: options.operator ?? PLACEHOLDER_OPERATOR,
    },
    assets,
  );
  for (const [path, html] of pages) publicFiles.set(path, html);
  return { entries, packs, packMeta, publicFiles, catalogFiles, assets, versions, addedVersions, versionFiles };
}

/** Builds and writes all three trees; safe to run while a server reads them. */
export async function buildSite(options: BuildOptions = {}): Promise<BuildResult> {
  const result = await buildCatalog(options);
  writeVersions(result.addedVersions, options.versionsDir ?? VERSIONS_DIR);
  writeTree(VERSIONS_DIST_DIR, result.versionFiles);
  writeTree(PUBLIC_DIR, result.publicFiles);
  writeTree(CATALOG_DIR, result.catalogFiles);
  writeTree(SEALED_DIR, new Map([['packs.json', JSON.stringify(Object.fromEntries(result.packs))]]));
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const t = performance.now();
  try {
    const { entries, addedVersions } = await buildSite();
    console.log(`catalog: ${entries.length} skills built in ${Math.round(performance.now() - t)} ms`);
    for (const v of addedVersions)
      console.log(
        `catalog: published ${v.skill_id} version ${v.version} (sha256:${v.digest}); commit catalog/versions/sha256/${v.digest}.json`,
      );
  } catch (e) {
    if (e instanceof CatalogError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
}
