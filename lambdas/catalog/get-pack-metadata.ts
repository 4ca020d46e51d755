import { SEAL_VERIFY_COMMAND } from '../contract/pack-seal';
import { links } from '../contract/links';
import { absoluteEntry } from './skill-card';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { requireSkill } from './skill-param';
import type { CatalogEntry } from '../contract/catalog-data';
import type { Catalog, CatalogPorts } from './ports';
import { digestRef, type PackVersionMeta } from '../contract/pack-versions';

/** A version as the listings name it: its number, digest (`sha256:<hex>`), day and size. */
export const versionListing = (v: PackVersionMeta) => ({
  number: v.version,
  digest: digestRef(v.digest),
  published: v.published,
  file_count: v.file_count,
  total_bytes: v.total_bytes,
});

/** GET /api/packs?skill=: what the pack holds (paths, sizes, hashes, seal), never its text. */
export function getPackMetadata(req: ApiRequest, { catalog }: Pick<CatalogPorts, 'catalog'>): ApiResponse {
  return json(200, packMetadataDocument(catalog, requireSkill(catalog, req.query['skill']), req.baseUrl));
}

/** The pack metadata document of a skill, as GET /api/packs answers it (MCP serves it as a resource too). */
export function packMetadataDocument(catalog: Catalog, entry: CatalogEntry, baseUrl: string) {
  const meta = catalog.packMeta(entry.id)!;
  const abs = absoluteEntry(entry, baseUrl);
  const versions = catalog.versions(entry.id) ?? [];
  const current = versions.at(-1);
  return {
    ok: true,
    skill_id: entry.id,
    name: entry.name,
    // The current version (its digest is the seal below) and every earlier one, newest first (issue 52).
    ...(current ? { version: versionListing(current) } : {}),
    earlier_versions: versions.slice(0, -1).reverse().map(versionListing),
    file_count: meta.file_count,
    total_bytes: meta.total_bytes,
    files: meta.files,
    seal: {
      algorithm: 'sha256',
      value: meta.seal,
      canonical_form:
        'sha256 of the lines "<sha256 of file>  <path>\\n" for every file, sorted by path in byte order (sha256sum output format)',
      verify_command: SEAL_VERIFY_COMMAND,
    },
    price: {
      price_usd: entry.price_usd,
      price_label: entry.price_label,
      regular_price_usd: entry.regular_price_usd,
      amount: entry.x402.amount,
      asset: 'USDC',
    },
    outline: abs.outline,
    sample: abs.sample,
    pay: abs.x402.resource,
    // Each version's signed provenance: the current one's here, an earlier one's with &version=<n>.
    ...(current ? { provenance: links(baseUrl).skill(entry.id).provenance(current.version) } : {}),
  };
}
