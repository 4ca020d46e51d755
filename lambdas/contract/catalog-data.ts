/** Shapes of the built catalog data (dist/catalog) that the build writes and every domain reads. */

/** The spec's catalog size: 250 public skills. The build refuses another count; /api/ready checks it. */
export const CATALOG_SIZE_EXPECTED = 250;

/** The payment surface of a skill as the public catalog states it (paths are relative to the base URL). */
export interface SkillX402Surface {
  resource: string;
  method: 'GET';
  scheme: 'exact';
  network: string;
  network_name: string;
  asset: 'USDC';
  /** Atomic USDC (6 decimals) as an integer string: the amount the 402 challenge asks for. */
  amount: string;
}

/** One skill as /catalog.json lists it. */
export interface CatalogEntry {
  id: string;
  name: string;
  price_usd: number;
  price_label: string;
  regular_price_usd: number;
  category: string;
  summary: string;
  tags: string[];
  protocols: string[];
  x402: SkillX402Surface;
  outline: string;
  sample: string;
}

export interface PackFileMeta {
  path: string;
  bytes: number;
  sha256: string;
}

/** What a buyer may know about a pack before paying: its shape and seal, never its text. */
export interface PackMeta {
  skill_id: string;
  file_count: number;
  total_bytes: number;
  files: PackFileMeta[];
  /** sha256 over the pack's canonical form; see {@link packSeal}. */
  seal: string;
}

/** A sealed pack: path → text. Only the payments code reads these. */
export type SealedPack = Record<string, string>;
