import { CAIP2 } from '../contract/chain';
import { links } from '../contract/links';
import type { Catalog } from '../catalog';
import type { MarketConfig } from '../contract/settings';
import { buildPaymentRequired, X402_V2 } from '../payments';

/** The spec's ten x402 resource entries, from the price source (the same list OpenAPI carries). */
export function x402Resources(catalog: Catalog, config: MarketConfig, base: string) {
  return catalog.pricing.x402Resources.map((id) => {
    const e = catalog.get(id)!;
    return {
      skill_id: e.id,
      name: e.name,
      resource: links(base).skill(e.id).challenge,
      method: 'GET' as const,
      scheme: 'exact' as const,
      network: CAIP2,
      asset: config.assets.USDC ?? null,
      amount: e.x402.amount,
      price_usd: e.price_usd,
      regular_price_usd: e.regular_price_usd,
    };
  });
}

/**
 * The same list in x402's discovery shape (the Bazaar's `{x402Version, items, pagination}`), in
 * x402 v2: each item's `accepts` is exactly what `PAYMENT-REQUIRED` offers for that resource (USDC
 * and USDbC, token addresses, EIP-712 domains), so a v2 client can pay from the list alone.
 * `metadata.flows` names the two ways to pay it (docs/PAYMENTS.md).
 */
export function x402Discovery(catalog: Catalog, config: MarketConfig, base: string, limit: number, offset: number) {
  const all = x402Resources(catalog, config, base);
  const payable = config.treasury !== undefined && config.assets.USDC !== undefined && config.assets.USDbC !== undefined;
  return {
    x402Version: X402_V2,
    items: all.slice(offset, offset + limit).map((r) => {
      const entry = catalog.get(r.skill_id)!;
      return {
        resource: r.resource,
        type: 'http',
        x402Version: X402_V2,
        accepts: payable ? buildPaymentRequired(entry, config, base).accepts : [],
        metadata: {
          skill_id: r.skill_id,
          name: r.name,
          description: entry.summary,
          price_usd: r.price_usd,
          regular_price_usd: r.regular_price_usd,
          flows: {
            x402_v2: `GET ${r.resource} again with PAYMENT-SIGNATURE (exact, EIP-3009); the service settles it`,
            transfer: `transfer the amount to payTo, then POST ${links(base).pay} with X-PAYMENT {"txHash","skill"}`,
          },
        },
      };
    }),
    pagination: { limit, offset, total: all.length },
  };
}
