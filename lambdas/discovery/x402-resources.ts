import { cheapestFirst, type CatalogEntry } from '../contract/catalog-data';
import { links } from '../contract/links';
import type { Catalog } from '../catalog';
import { challengeable, type MarketConfig } from '../contract/settings';
import { buildPaymentRequired, X402_V2, type EscrowOffer } from '../payments';

/** The spec's x402 resource entry of one skill, its price from the catalog's price source. */
function resourceEntry(e: CatalogEntry, config: MarketConfig, base: string) {
  return {
    skill_id: e.id,
    name: e.name,
    resource: links(base).skill(e.id).challenge,
    method: 'GET' as const,
    scheme: 'exact' as const,
    network: config.network.caip2,
    asset: config.assets.USDC ?? null,
    amount: e.x402.amount,
    price_usd: e.price_usd,
    regular_price_usd: e.regular_price_usd,
  };
}

/**
 * The spec's ten x402 resource entries, from the price source: the list the spec's clients read in
 * the machine-readable description (OpenAPI's `x-x402-resources`). Ten, as the spec says; the
 * discovery document below pages through every skill.
 */
export function x402Resources(catalog: Catalog, config: MarketConfig, base: string) {
  return catalog.pricing.x402Resources.map((id) => resourceEntry(catalog.get(id)!, config, base));
}

/**
 * Every purchasable skill in the discovery document's order: the spec's ten first (the price
 * source's order, canary first), so the first page of ten is the spec's list, then the rest
 * cheapest first. Computed once per catalog: the catalog is fixed for the life of a process.
 */
const orders = new WeakMap<Catalog, readonly CatalogEntry[]>();
function discoveryOrder(catalog: Catalog): readonly CatalogEntry[] {
  let order = orders.get(catalog);
  if (!order) {
    const featured = new Set(catalog.pricing.x402Resources);
    order = [
      ...catalog.pricing.x402Resources.map((id) => catalog.get(id)!),
      ...catalog.entries.filter((e) => !featured.has(e.id)).sort(cheapestFirst),
    ];
    orders.set(catalog, order);
  }
  return order;
}

/**
 * GET /.well-known/x402: every purchasable skill in the x402 Bazaar's list shape
 * (`{x402Version, items, pagination: {limit, offset, total}}`, the fields of x402's
 * `listResources`), a page at a time. Each item is the spec's resource entry (skill_id, name,
 * resource, method, scheme, network, asset, amount, price_usd, regular_price_usd) with the
 * Bazaar's resource fields beside it: `type`, `x402Version`, `description`, `mimeType` and
 * `accepts`, exactly what the resource's `PAYMENT-REQUIRED` offers (x402 v2: token addresses,
 * EIP-712 domains), so a v2 client can pay from the list alone. `metadata.flows` names the two
 * ways to pay it (docs/PAYMENTS.md).
 */
export function x402Discovery(
  catalog: Catalog,
  config: MarketConfig,
  base: string,
  limit: number,
  offset: number,
  escrow?: EscrowOffer | undefined,
) {
  const all = discoveryOrder(catalog);
  const payable = challengeable(config);
  const pay = links(base).pay;
  return {
    x402Version: X402_V2,
    items: all.slice(offset, offset + limit).map((entry) => {
      const r = resourceEntry(entry, config, base);
      return {
        ...r,
        type: 'http' as const,
        x402Version: X402_V2,
        description: `${entry.name}: ${entry.summary}`,
        mimeType: 'application/json',
        accepts: payable ? buildPaymentRequired(entry, config, base, escrow).accepts : [],
        metadata: {
          category: entry.category,
          flows: {
            x402_v2: `GET ${r.resource} again with PAYMENT-SIGNATURE (exact, EIP-3009); the service settles it`,
            ...(escrow && config.authCapture
              ? {
                  x402_escrow: `GET ${r.resource} again with PAYMENT-SIGNATURE (auth-capture, paymentFlow escrow): the price is held in the escrow and captured only once the pack is delivered`,
                }
              : {}),
            transfer: `transfer the amount to payTo, then POST ${pay} with X-PAYMENT {"txHash","skill"}`,
          },
        },
      };
    }),
    pagination: { limit, offset, total: all.length },
  };
}
