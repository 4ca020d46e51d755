import { CAIP2, NETWORK } from '../contract/chain';
import { links } from '../contract/links';
import type { Catalog } from '../catalog';
import type { MarketConfig } from '../contract/settings';
import { MAX_TIMEOUT_SECONDS, X402_VERSION } from '../payments';

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

/** The same list in x402's discovery shape: {x402Version, items, pagination}. */
export function x402Discovery(catalog: Catalog, config: MarketConfig, base: string, limit: number, offset: number) {
  const all = x402Resources(catalog, config, base);
  return {
    x402Version: X402_VERSION,
    items: all.slice(offset, offset + limit).map((r) => ({
      resource: r.resource,
      type: 'http',
      x402Version: X402_VERSION,
      accepts: [
        {
          scheme: 'exact',
          network: NETWORK,
          network_caip2: CAIP2,
          maxAmountRequired: r.amount,
          resource: r.resource,
          description: catalog.get(r.skill_id)!.summary,
          mimeType: 'application/json',
          payTo: config.treasury ?? null,
          maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
          asset: r.asset,
        },
      ],
      metadata: { skill_id: r.skill_id, name: r.name, price_usd: r.price_usd, regular_price_usd: r.regular_price_usd },
    })),
    pagination: { limit, offset, total: all.length },
  };
}
