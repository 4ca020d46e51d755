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

/**
 * The catalog's order without a query: cheapest first, then by id. `GET /api/catalog` answers in it
 * and the storefront's home page is pre-rendered in it, so both list the same skills in the same order.
 */
export const cheapestFirst = (a: Pick<CatalogEntry, 'id' | 'price_usd'>, b: Pick<CatalogEntry, 'id' | 'price_usd'>): number =>
  a.price_usd - b.price_usd || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

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

/** A recurring plan: a period of access to every skill, or to one category, for one transfer. */
export interface SubscriptionPlan {
  /** `all-access-<days>d` or `<category>-<days>d`. */
  id: string;
  name: string;
  /** Which skills it covers: all of them, or those of one category. */
  scope: { kind: 'all' } | { kind: 'category'; category: string };
  /** Atomic USDC per period, from catalog/pricing.json. */
  amount: string;
  period_seconds: number;
}

/** The price source as the Lambdas read it (dist/catalog/pricing.json), derived by the build from catalog/pricing.json. */
export interface PricingData {
  canary: string;
  x402_resources: string[];
  card_cents: Record<string, number>;
  plans: SubscriptionPlan[];
  /** Atomic USDC: the smallest transfer that funds a prepaid meter. */
  meter_min_top_up: string;
}

/** The plans the price source defines: one all-access plan, then one per category (sorted). */
export function subscriptionPlans(
  subscriptions: { period_days: number; all_access: { amount: string }; per_category: { amount: string } },
  categories: readonly string[],
): SubscriptionPlan[] {
  const days = subscriptions.period_days;
  const period_seconds = days * 86_400;
  return [
    {
      id: `all-access-${days}d`,
      name: `All access, ${days} days`,
      scope: { kind: 'all' },
      amount: subscriptions.all_access.amount,
      period_seconds,
    },
    ...[...categories].sort().map((category): SubscriptionPlan => ({
      id: `${category}-${days}d`,
      name: `${category}, ${days} days`,
      scope: { kind: 'category', category },
      amount: subscriptions.per_category.amount,
      period_seconds,
    })),
  ];
}

/** A composable stack of skills (dist/catalog/bundles.json); its price is always the sum of its skills' current prices. */
export interface BundleDefinition {
  id: string;
  name: string;
  summary: string;
  /** Skill ids, in the order a buyer would use them. */
  skills: string[];
}

/** dist/catalog/listings.json: the UTC day (`yyyy-mm-dd`) each skill was listed, by skill id. */
export type Listings = Record<string, string>;
